"""Recipes and raw fixtures for the real downloads: paper tasks held by no peer benchmark
(merged into fill_layouts).

Same entry format as :mod:`recipe_layouts` (sources, split, fixture). The layouts were read
from the organisers' own code or data pages, each named in the entry's sources.
"""

from __future__ import annotations

from typing import Any

from recipe_layouts import page

OGB_COMMIT = "16774e38da070d8257bf31230dd07f7dcfab1ea8"


def ogb(path: str, detail: str) -> list[dict[str, str]]:
    """A file of the OGB package (github:snap-stanford/ogb) as the source."""
    return [{"source": "github:snap-stanford/ogb", "commit": OGB_COMMIT, "path": path,
             "detail": detail}]

#: playground-series-s5e3's features, in file order (the data page).
_WEATHER = {"day": "int:1:365", "pressure": "float:999:1035", "maxtemp": "float:7:36",
            "temparature": "float:4:32", "mintemp": "float:2:30", "dewpoint": "float:-0.3:26",
            "humidity": "float:39:98", "cloud": "float:2:100", "sunshine": "float:0:12",
            "winddirection": "float:10:300", "windspeed": "float:4:60"}


LAYOUTS: dict[str, dict[str, Any]] = {
    "ogb/ogb-lsc-pcqm4m": {
        "sources": ogb("ogb/lsc/pcqm4m.py",
                       "pcqm4m_kddcup2021.zip unpacks to pcqm4m_kddcup2021/ holding "
                       "raw/data.csv.gz (a molecule a row: idx, smiles, homolumogap; the "
                       "official test molecules' homolumogap is NaN), split_dict.pt and "
                       "RELEASE_v1.txt; the split drops the unlabelled molecules and holds "
                       "out 10% of the labelled ones"),
        "split": {"strategy": "random", "train_file": "pcqm4m_kddcup2021/raw/data.csv",
                  "id_column": "idx", "target_columns": ["homolumogap"], "test_size": 0.1,
                  "transforms": [{"op": "drop_rows", "column": "homolumogap", "rule": "empty",
                                  "reason": "the official test molecules have no published "
                                            "HOMO-LUMO gap"}]},
        "fixture": {"rows": 80, "tables": [
            {"path": "pcqm4m_kddcup2021/raw/data.csv",
             "archive": "pcqm4m_kddcup2021/raw/data.csv.gz",
             "columns": {"idx": "seq:{i}",
                         "smiles": "choice:CCO|c1ccccc1O|O=C1C=CC(O1)C(c1ccccc1C)O|CC(=O)N",
                         "homolumogap": "choice:|3.0477|4.4109|5.2926|6.1183|7.0345|4.9021"}},
        ]},
    },
    "kaggle/playground-series-s5e3": {
        "sources": page("playground-series-s5e3",
                        "train.csv (id, day, pressure, maxtemp, temparature, mintemp, "
                        "dewpoint, humidity, cloud, sunshine, winddirection, windspeed, "
                        "rainfall 0/1), test.csv without rainfall (ids from 2190), "
                        "sample_submission.csv (id, rainfall) at the top of the download"),
        "split": {"strategy": "stratified", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["rainfall"], "stratify_column": "rainfall",
                  "test_size": 0.1},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i}", **_WEATHER, "rainfall": "choice:0|1"}},
            {"path": "test.csv", "columns": {
                "id": "seq:2{i:03d}", **_WEATHER}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:2{i:03d}",
                                                          "rainfall": "const:0"}},
        ]},
    },
}
