"""DP-SGD in the engineer's terms: dataset size, batch size, epochs and noise multiplier → one guarantee.

DP-SGD (Abadi et al. 2016, Alg. 1) clips each example's gradient to norm C, adds Gaussian noise of standard
deviation σ·C to the sum over a batch and takes T steps. Per step, on the batch, it is the Gaussian mechanism
with noise multiplier σ (sensitivity 1 in units of C); each batch is a sample of rate q = B/N of the N records;
the T = ⌈E·N/B⌉ steps of E epochs compose. So the guarantee is

    subsample(gaussian_guarantee(sigma=σ), q, method=sampling), composed T times,

with the library's tightest accountant for each part (:func:`privrisk.accounting.subsample`,
:func:`privrisk.accounting.compose`). ``sampling="poisson"`` is the analysis of Abadi et al. and of Opacus and
dp_accounting (each record joins each batch independently with probability q); ``"without_replacement"`` is
fixed-size batches (shuffling and slicing, which is what most training loops do).

Example:
    >>> dpsgd_steps(dataset_size=60_000, batch_size=256, epochs=60)   # TF-Privacy's MNIST tutorial
    14063
    >>> g = dpsgd(dataset_size=1000, batch_size=1000, epochs=4, noise_multiplier=2.0)   # q = 1: 4 plain steps
    >>> g.mu                                                             # μ = √4/2
    1.0
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal

from privrisk._validation import check_choice, check_whole
from privrisk.accounting.guarantees import Guarantee, check_positive
from privrisk.errors import PrivriskError

__all__ = ["dpsgd", "dpsgd_sample_rate", "dpsgd_steps"]

Sampling = Literal["poisson", "without_replacement"]


def _epochs(epochs: float | int | str) -> Fraction:
    value = check_positive(epochs, name="epochs")
    # Fraction(str(...)) reads 0.1 as 1/10, so ⌈E·N/B⌉ is exact where a float product would round.
    return Fraction(str(epochs)) if isinstance(epochs, str) else Fraction(repr(value))


def dpsgd_steps(*, dataset_size: int, batch_size: int, epochs: float) -> int:
    """T = ⌈E·N/B⌉: the steps of E epochs over N records in batches of B (computed exactly, in fractions).

    Example:
        >>> dpsgd_steps(dataset_size=100, batch_size=30, epochs=1), dpsgd_steps(dataset_size=100, batch_size=30, epochs=0.3)
        (4, 1)
    """
    n = check_whole(dataset_size, name="dataset_size", minimum=1)
    b = check_whole(batch_size, name="batch_size", minimum=1)
    if b > n:
        raise PrivriskError(
            f"batch_size: a batch of {b:,} is larger than the dataset of {n:,} records", param="batch_size"
        )
    return max(1, math.ceil(_epochs(epochs) * n / b))


def dpsgd_sample_rate(*, dataset_size: int, batch_size: int) -> float:
    """q = B/N: the rate at which each record joins a batch."""
    n = check_whole(dataset_size, name="dataset_size", minimum=1)
    b = check_whole(batch_size, name="batch_size", minimum=1)
    if b > n:
        raise PrivriskError(
            f"batch_size: a batch of {b:,} is larger than the dataset of {n:,} records", param="batch_size"
        )
    return b / n


def dpsgd(
    *,
    dataset_size: int,
    batch_size: int,
    epochs: float,
    noise_multiplier: float,
    sampling: Sampling | str = "poisson",
) -> Guarantee:
    """The guarantee of training with DP-SGD: T = ⌈E·N/B⌉ steps of the Gaussian mechanism with noise multiplier
    σ, each on a sample of rate q = B/N (Abadi et al. 2016).

    Args:
        dataset_size: N, the records in the training set.
        batch_size: B (the expected batch size under Poisson sampling), 1 ≤ B ≤ N.
        epochs: E > 0 (may be fractional).
        noise_multiplier: σ, the noise's standard deviation over the clipping norm.
        sampling: ``"poisson"`` (Opacus, dp_accounting) or ``"without_replacement"`` (fixed-size batches);
            ``"without-replacement"`` is read too.

    Returns:
        A :class:`~privrisk.accounting.Guarantee`; its ``conversion`` names the accountant used.

    Raises:
        PrivriskError: naming the argument, for sizes that are not whole numbers ≥ 1, B > N, E or σ not
            finite and positive, or an unknown sampling.

    Example:
        >>> g = dpsgd(dataset_size=60_000, batch_size=256, epochs=1, noise_multiplier=1.1)
        >>> 0 < g.epsilon_at(1e-5) < 1
        True
    """
    from privrisk.accounting.mechanisms import gaussian_guarantee
    from privrisk.accounting.subsampling import subsample

    steps = dpsgd_steps(dataset_size=dataset_size, batch_size=batch_size, epochs=epochs)
    rate = dpsgd_sample_rate(dataset_size=dataset_size, batch_size=batch_size)
    sigma = check_positive(noise_multiplier, name="noise_multiplier")
    method = check_choice(
        str(sampling).replace("-", "_"), ("poisson", "without_replacement"), name="sampling"
    )
    step: Guarantee = gaussian_guarantee(sigma=sigma)
    if rate < 1.0:
        step = subsample(step, rate, method=method)  # type: ignore[arg-type]
    return step.compose(steps) if steps > 1 else step
