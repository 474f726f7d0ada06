"""Presence on Spark: rolling a large finest-level histogram up to a node of the generalisation lattice.

The codes are mapped per batch with the same numpy lookup as :func:`privrisk.presence.rollup.roll_up`
(``mapInPandas``) and grouped by Spark; the (smaller) result comes back to the driver. It lives with presence, not
in :mod:`privrisk.io.engine`, because it returns presence's :class:`~privrisk.presence.rollup.Rolled` and io sits
on a lower floor (docs/architecture.md). pyspark is imported only when a roll-up runs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privrisk.io.engine import spark_session
from privrisk.presence.rollup import Rolled

__all__ = ["SparkRollUp"]


class SparkRollUp:
    """Roll-ups of a large finest-level histogram to lattice nodes, run in Spark.

    The encoded histogram (codes of both tables and their counts) is shipped once and cached; each node maps the
    codes through the hierarchies' level arrays with the same numpy lookup as the local roll-up
    (``mapInPandas``), groups them in Spark, and brings the classes back sorted as the local path sorts them.
    ``data_class`` (finest research class → class index) is not computed here; the measures do not use it.
    """

    def __init__(self, enc, master: str | None = None, spark=None):
        self.enc = enc
        self.spark = spark or spark_session(master)
        q = enc.q
        n_p, n_d = enc.pop_codes.shape[0], enc.data_codes.shape[0]
        # int64 whatever the codes' type: the kernel's lookups give int64, and mapInPandas keeps this schema.
        cols = {f"c{j}": np.concatenate([enc.pop_codes[:, j], enc.data_codes[:, j]]).astype(np.int64)
                for j in range(q)}  # fmt: skip
        cols["p"] = np.concatenate([enc.pop_counts, np.zeros(n_d, np.int64)]).astype(np.int64)
        cols["d"] = np.concatenate([np.zeros(n_p, np.int64), enc.data_counts]).astype(np.int64)
        self.frame = self.spark.createDataFrame(pd.DataFrame(cols)).cache()

    def __call__(self, levels):
        from pyspark.sql import functions as F

        levels = [int(x) for x in levels]
        maps = [np.asarray(self.enc.maps[j][lvl], dtype=np.int64) for j, lvl in enumerate(levels)]
        names = [f"c{j}" for j in range(len(levels))]

        def kernel(batches):
            for pdf in batches:
                out = {n: m[pdf[n].to_numpy()] for n, m in zip(names, maps, strict=True)}
                yield pd.DataFrame({**out, "p": pdf["p"], "d": pdf["d"]})

        mapped = self.frame.mapInPandas(kernel, schema=self.frame.schema)
        grouped = mapped.groupBy(*names).agg(F.sum("p").alias("p"), F.sum("d").alias("d"))
        pdf = grouped.where("p > 0 OR d > 0").toPandas()
        codes = pdf[names].to_numpy(np.int64).reshape(len(pdf), len(names))
        order = np.lexsort(codes[:, ::-1].T) if len(names) else np.arange(len(pdf))
        return Rolled(
            codes[order],
            pdf["d"].to_numpy(np.int64)[order],
            pdf["p"].to_numpy(np.int64)[order],
            np.zeros(0, np.int64),
        )

    def close(self) -> None:
        self.frame.unpersist()
