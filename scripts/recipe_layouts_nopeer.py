"""Recipes and raw fixtures for the real downloads: paper tasks held by no peer benchmark
(merged into fill_layouts).

Same entry format as :mod:`recipe_layouts` (sources, split, fixture). The layouts were read
from the organisers' own code or data pages, each named in the entry's sources.
"""

from __future__ import annotations

from typing import Any

from recipe_layouts import _playground

OGB_COMMIT = "16774e38da070d8257bf31230dd07f7dcfab1ea8"
#: The commit of the OGB package's mag240m.py read for MAG240M's layout.
MAG_COMMIT = "0b73e1434ab6e903d90a46a48d2b563b0cf4a61e"
OGB_WEB_COMMIT = "f4c21f16796589fdf18dee00b206e01915cfa564"


def ogb(path: str, detail: str, commit: str = OGB_COMMIT) -> list[dict[str, str]]:
    """A file of the OGB package (github:snap-stanford/ogb) as the source."""
    return [{"source": "github:snap-stanford/ogb", "commit": commit, "path": path,
             "detail": detail}]


_MAG = "mag240m_kddcup2021/processed/"
#: MAG240M's graph arrays published beside the tables: paper features and years, and the
#: three edge types (never node_label.npy, which holds the answers, nor split_dict.pt).
_MAG_PUBLIC = [f"{_MAG}paper/node_feat.npy", f"{_MAG}paper/node_year.npy",
               f"{_MAG}author___writes___paper/edge_index.npy",
               f"{_MAG}author___affiliated_with___institution/edge_index.npy",
               f"{_MAG}paper___cites___paper/edge_index.npy"]
#: node_label.npy's values as NumPy writes them: a subject area 0..152 as a float, NaN for a
#: non-arXiv paper, -1 for an official test paper (both left without a label).
_MAG_LABELS = {"NaN": "", "-1.0": "", **{f"{k}.0": str(k) for k in range(153)}}


def _mag240m() -> dict[str, Any]:
    edges = {"source": "int:0:59", "target": "int:0:59"}
    return {
        "sources": ogb("ogb/lsc/mag240m.py",
                       "mag240m_kddcup2021.zip unpacks to mag240m_kddcup2021/ holding meta.pt, "
                       "split_dict.pt and processed/: paper/node_feat.npy (768 float16 "
                       "features a paper), paper/node_label.npy (subject area as a float, NaN "
                       "for non-arXiv papers, -1 for the official test papers), "
                       "paper/node_year.npy, and the edge_index.npy of author___writes___paper, "
                       "author___affiliated_with___institution and paper___cites___paper",
                       MAG_COMMIT) + [{
            "source": "github:snap-stanford/ogb-web", "commit": OGB_WEB_COMMIT,
            "path": "_docs/kddcup2021/mag240m.md",
            "detail": "153 subject areas; the split is by year: training papers until 2018, "
                      "validation 2019, test 2020 (labels hidden); the recipe keeps the "
                      "labelled papers and holds out the latest year, 2019"}],
        "split": {"strategy": "time", "id_column": "paper", "target_columns": ["label"],
                  "time_column": "year", "last_k_periods": 1,
                  "extra_public_files": _MAG_PUBLIC,
                  "transforms": [
                      {"op": "npy_table", "row_column": "paper",
                       "arrays": {"label": f"{_MAG}paper/node_label.npy",
                                  "year": f"{_MAG}paper/node_year.npy"}},
                      {"op": "map_values", "column": "label", "mapping": _MAG_LABELS},
                      {"op": "drop_rows", "column": "label", "rule": "empty",
                       "reason": "non-arXiv papers and the official test papers have no "
                                 "published subject area"}]},
        "fixture": {"rows": 120, "tables": [
            {"path": f"{_MAG}paper/node_label.npy",
             "columns": {"label": "choice:NaN|-1.0|0.0|5.0|17.0|152.0"}},
            {"path": f"{_MAG}paper/node_year.npy",
             "columns": {"year": "choice:2015|2016|2017|2018|2019"}},
            {"path": f"{_MAG}paper/node_feat.npy",
             "columns": {"f0": "float:-1:1", "f1": "float:-1:1", "f2": "float:-1:1"}},
            *({"path": rel, "rows": 40, "columns": edges} for rel in _MAG_PUBLIC[2:]),
        ]},
    }

#: playground-series-s5e3's features, in file order (its data page; the target rainfall is
#: 0/1, the sample submission id,rainfall).
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
    "kaggle/playground-series-s5e3": _playground("playground-series-s5e3", "rainfall", _WEATHER),
    "ogb/ogb-lsc-mag240m": _mag240m(),
}
