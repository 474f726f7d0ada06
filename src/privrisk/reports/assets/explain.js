(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("privrisk-data").textContent);
  var T = D.text;
  // Python's round(): halves go to the even neighbour.
  function roundHalfEven(x) {
    var f = Math.floor(x), d = x - f;
    if (d > 0.5) return f + 1;
    if (d < 0.5) return f;
    return (f % 2 === 0) ? f : f + 1;
  }
  function group(n) {
    var s = String(Math.abs(n)), out = "";
    while (s.length > 3) { out = T.thousands + s.slice(-3) + out; s = s.slice(0, -3); }
    return (n < 0 ? "-" : "") + s + out;
  }
  function fixed(x, places, decimal) {
    var r = roundHalfEven(x * Math.pow(10, places));
    var s = String(Math.abs(r));
    while (s.length < places + 1) s = "0" + s;
    var whole = s.slice(0, s.length - places), fraction = s.slice(s.length - places);
    return (r < 0 ? "-" : "") + group(Number(whole)) + (places ? decimal + fraction : "");
  }
  // privrisk._format.natural_frequencies: the attacker's p and the guess g counted out of one base, the least
  // (from 100, tenfold, up to 1,000,000) that gives p a count and then g one too; never "none" or "all" for a
  // probability strictly between 0 and 1.
  function frequencies(p, g) {
    var base = 100;
    while (p > 0 && roundHalfEven(p * base) < 1 && base < 1000000) base *= 10;
    if (g > 0) {
      var c = base;
      while (roundHalfEven(g * c) < 1 && c < 1000000) c *= 10;
      if (roundHalfEven(g * c) >= 1) base = c;
    }
    return [frequency(p, base), frequency(g, base)];
  }
  function frequency(p, base) {
    var count = roundHalfEven(p * base), kind;
    if (p === 0) kind = "none";
    else if (p === 1) kind = "all";
    else if (count < 1) kind = "fewer";
    else if (count >= base) kind = "more";
    else kind = "about";
    return {kind: kind, count: count, base: base};
  }
  function fill(template, values) {
    for (var key in values) template = template.split("{" + key + "}").join(values[key]);
    return template;
  }
  function phrase(f) {
    return fill(T.freq[f.kind], {count: group(f.count), base: group(f.base), base1: group(f.base - 1)});
  }
  function percent(x) {
    if (x > 0 && x < 0.005) return T.pct_less;
    if (x >= 0.995 && x < 1) return T.pct_more;
    return roundHalfEven(100 * x) + " %";
  }
  function expit(x) { return 1 / (1 + Math.exp(-x)); }
  // privrisk._format.below_certainty: every risk of a finite ε > 0 is below 1, even where a double says 1.
  var BELOW_ONE = 1 - Math.pow(2, -53);
  function below(x, eps) { return eps > 0 ? Math.min(x, BELOW_ONE) : x; }
  var SUPERSCRIPT = {"-": "\u207b", "0": "\u2070", "1": "\u00b9", "2": "\u00b2", "3": "\u00b3", "4": "\u2074",
                     "5": "\u2075", "6": "\u2076", "7": "\u2077", "8": "\u2078", "9": "\u2079"};
  function power(log10) {  // explain._power: "4.9 × 10⁸"
    var k = Math.floor(log10), m = roundHalfEven(Math.pow(10, log10 - k) * 10);
    if (m >= 100) { m = 10; k += 1; }
    var sup = String(k).split("").map(function (c) { return SUPERSCRIPT[c]; }).join("");
    return Math.floor(m / 10) + T.decimal + (m % 10) + " \u00d7 10" + sup;
  }
  function ratioText(eps) {  // explain._ratio: e^ε, never "1.0" for ε > 0 and never "more than"
    if (eps === 0) return "1";
    var excess = eps < 1 ? Math.expm1(eps) : Infinity;
    if (excess < 1e-6) return "1 + " + power(Math.log10(excess));
    if (excess < 0.05) {
      var places = 1 - Math.floor(Math.log10(excess));
      var digits = String(roundHalfEven(excess * Math.pow(10, places)));
      while (digits.length < places) digits = "0" + digits;
      return "1" + T.decimal + digits;
    }
    if (eps < Math.log(D.ratio_limit)) return fixed(Math.exp(eps), 1, T.decimal);
    return power(eps * Math.LOG10E);
  }
  function numbers(eps) {
    var p = below(expit(eps), eps);                          // global risk ρ_gl (Mehner et al., eq. 3)
    var gamma = below(Math.min(Math.tanh(eps / 2), 1), eps); // global leak Γ = 2ρ_gl − 1
    var fg = frequencies(p, 0.5), f = fg[0];
    var shown = {about: f.count, more: f.base - 1, all: f.base, fewer: 0, none: 0}[f.kind];
    var guess = fg[1].count;
    var coin = fixed(p, 3, T.decimal);
    if (p < 1 && coin === fixed(1, 3, T.decimal)) coin = T.coin_more;
    var v = {
      eps: fixed(eps, 2, T.decimal),
      ratio: ratioText(eps),
      risk: phrase(f),
      risk_base: group(f.base),
      guess: group(guess),
      gamma: percent(gamma),
      gamma_width: fixed(100 * gamma, 1, "."),
      coin: coin,
      heads_width: fixed(100 * p, 1, "."),
      icons_guess: String(Math.min(guess, shown)),
      icons_extra: String(Math.max(shown - guess, 0)),
      icons_wrong: String(f.base - Math.max(shown, guess))
    };
    if (D.n !== null) {
      var rho = below(expit(eps - Math.log(D.n - 1)), eps);  // many-worlds risk ρ_mw (Mehner et al., eq. 2)
      var mg = frequencies(rho, 1 / D.n), m = mg[0], g = mg[1];
      v.n = group(D.n); v.mw = phrase(m); v.mw_base = group(m.base); v.mw_guess = phrase(g);
    }
    return v;
  }
  window.privriskNumbers = numbers;

  var slider = document.getElementById("eps-slider");
  var box = document.getElementById("explore");
  var live = document.getElementById("explore-live");
  var icons = document.getElementById("explore-icons");
  function show(index, announce) {
    var eps = D.grid[index];
    var v = numbers(eps);
    box.setAttribute("data-epsilon", String(eps));
    var spans = box.querySelectorAll("[data-k]");
    for (var i = 0; i < spans.length; i++) {
      var key = spans[i].getAttribute("data-k");
      if (key in v) spans[i].textContent = v[key];
    }
    slider.setAttribute("aria-valuetext", fill(T.slider_value, v));
    document.getElementById("explore-gamma-bar").style.width = v.gamma_width + "%";
    var guess = Number(v.icons_guess), extra = Number(v.icons_extra);
    var people = icons.querySelectorAll(".person");
    for (var j = 0; j < people.length; j++) {
      people[j].setAttribute("class", "person " + (j < guess ? "guess" : j < guess + extra ? "extra" : "wrong"));
    }
    icons.setAttribute("aria-label", fill(T.icons_label, v));
    if (announce) live.textContent = fill(T.live, v);
  }
  slider.addEventListener("input", function () { show(Number(slider.value), true); });
  document.getElementById("explore-reset").addEventListener("click", function () {
    slider.value = String(D.start); show(D.start, true);
  });
  document.getElementById("explore-section").hidden = false;
})();
