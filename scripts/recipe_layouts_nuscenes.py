"""Raw fixtures of downloads in the nuScenes layout (Lyft Level 5: merged into fill_layouts).

The download of "Lyft 3D Object Detection for Autonomous Vehicles" is a nuScenes-format
dataset: ``train_data/`` holds the metadata tables (JSON lists of records that name each other
by 64-hex-digit tokens: log, scene, sample, sample_data, ego_pose, calibrated_sensor,
sample_annotation, instance, and the fixed lists attribute, category, sensor, visibility, map),
``train.csv`` one row per sample (``Id`` = the sample's token, ``PredictionString`` = its
objects, eight tokens each: ``center_x center_y center_z width length height yaw class``),
``train_images/`` and ``train_lidar/`` the camera and lidar files the sample_data records
name, ``train_maps/`` the one map raster. The tables are built here with their links (every
record a table names exists, every sample has objects), in shuffled order, so that a split that
follows the links in the wrong order or through the wrong field is seen.

An entry without ``split`` is a fixture alone: it gives MLE-bench's split (``prepare --like
mle-bench``) a download in the real layout; the task's own split recipe is left as it is.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
from recipe_layouts import mle

SLUG = "3d-object-detection-for-autonomous-vehicles"
CLASSES = ["car", "pedestrian", "animal", "other_vehicle", "bus", "motorcycle", "truck",
           "emergency_vehicle", "bicycle"]
#: (channel, modality, file format) of the sensors each sample has a record of.
SENSORS = [("CAM_FRONT", "camera", "jpeg"), ("CAM_BACK", "camera", "jpeg"),
           ("LIDAR_TOP", "lidar", "bin")]


def _token(kind: str, k: int) -> str:
    """A record's token: 64 hex digits, as the dataset's."""
    return hashlib.sha256(f"{kind} {k}".encode()).hexdigest()


def _floats(rng: np.random.Generator, n: int, low: float = -1.0, high: float = 1.0,
            digits: int = 6) -> list[float]:
    """Seeded numbers (``digits`` decimals; 0: at full precision, as the dataset's)."""
    return [float(v) if not digits else round(float(v), digits)
            for v in rng.uniform(low, high, n)]


def _shuffled(rng: np.random.Generator, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [records[int(k)] for k in rng.permutation(len(records))]


def _fixed_tables() -> dict[str, list[dict[str, Any]]]:
    """The lists every split copies as they are: attribute, category, sensor, visibility."""
    return {
        "attribute": [{"description": "", "token": _token("attribute", k), "name": name}
                      for k, name in enumerate(["object_action_parked", "object_action_walking",
                                                "object_action_driving_straight_forward"])],
        "category": [{"description": "", "token": _token("category", k), "name": name}
                     for k, name in enumerate(CLASSES)],
        "sensor": [{"modality": modality, "channel": channel, "token": _token("sensor", k)}
                   for k, (channel, modality, _) in enumerate(SENSORS)],
        "visibility": [{"description": f"visibility of {level}", "token": str(k + 1),
                        "level": level} for k, level in enumerate(["v0-40", "v40-60",
                                                                   "v60-80", "v80-100"])],
    }


def _scenes(logs: int, per_scene: int) -> dict[str, list[dict[str, Any]]]:
    """log, scene and sample: a scene per log sharing its token (MLE-bench's script reads a
    sample's ``scene_token`` as its log's), ``per_scene`` samples each."""
    out: dict[str, list[dict[str, Any]]] = {"log": [], "scene": [], "sample": []}
    for g in range(logs):
        log = _token("log", g)
        host = f"host-a{101 + g % 4}"
        samples = [_token("sample", g * per_scene + k) for k in range(per_scene)]
        out["log"].append({"vehicle": host[5:], "date_captured": f"2019-05-{10 + g}",
                           "location": "Palo Alto", "token": log,
                           "logfile": f"{host}_lidar1_{1241893239 + g}"})
        out["scene"].append({"description": "", "log_token": log, "nbr_samples": per_scene,
                             "first_sample_token": samples[0], "last_sample_token": samples[-1],
                             "name": f"{host}-lidar0-{1241893239 + g}", "token": log})
        out["sample"] += [{"next": samples[k + 1] if k + 1 < per_scene else "",
                           "prev": samples[k - 1] if k else "", "token": s,
                           "timestamp": 1241893239000 + 1000 * g + k, "scene_token": log}
                          for k, s in enumerate(samples)]
    return out


def _sensor_data(rng: np.random.Generator, tables: dict[str, list[dict[str, Any]]]
                 ) -> dict[str, str]:
    """sample_data, ego_pose and calibrated_sensor (one calibration per vehicle and sensor,
    shared by the vehicle's logs); the camera and lidar files they name (path -> text)."""
    hosts = {log["token"]: f"host-{log['logfile'].split('_')[0][5:]}" for log in tables["log"]}
    vehicle = {h: k for k, h in enumerate(sorted(set(hosts.values())))}
    for k in range(len(vehicle) * len(SENSORS)):
        channel, _, _ = SENSORS[k % len(SENSORS)]
        tables["calibrated_sensor"].append({
            "sensor_token": _token("sensor", k % len(SENSORS)), "rotation": _floats(rng, 4),
            "camera_intrinsic": [] if channel.startswith("LIDAR") else [
                _floats(rng, 3, 0, 900) for _ in range(3)],
            "translation": _floats(rng, 3, -2, 2), "token": _token("calibrated_sensor", k)})
    files = {}
    for sample in tables["sample"]:
        host = hosts[sample["scene_token"]]
        for channel, _, fmt in SENSORS:
            k = len(tables["sample_data"])
            ts = sample["timestamp"] * 1000 + k
            name = f"{host}_{channel.lower()}_{ts}.{fmt}"
            folder = "images" if fmt == "jpeg" else "lidar"
            cal = vehicle[host] * len(SENSORS) + [s[0] for s in SENSORS].index(channel)
            tables["sample_data"].append({
                "width": 1224 if fmt == "jpeg" else None, "height": 1024 if fmt == "jpeg"
                else None, "ego_pose_token": _token("ego_pose", k),
                "token": _token("sample_data", k), "next": "", "prev": "",
                "sample_token": sample["token"], "is_key_frame": True, "timestamp": ts,
                "fileformat": fmt, "filename": f"{folder}/{name}",
                "calibrated_sensor_token": _token("calibrated_sensor", cal)})
            tables["ego_pose"].append({"rotation": _floats(rng, 4),
                                       "translation": _floats(rng, 3, 0, 3000, 0),
                                       "token": _token("ego_pose", k), "timestamp": ts})
            files[f"train_{folder}/{name}"] = f"{fmt} {k} {rng.bytes(6).hex()}"
    return files


def _objects(rng: np.random.Generator, tables: dict[str, list[dict[str, Any]]]) -> str:
    """instance and sample_annotation (one to three objects per scene, on each of its
    samples); train.csv, whose rows list each sample's objects."""
    boxes: dict[str, list[str]] = {}
    for g, scene in enumerate(tables["scene"]):
        samples = [s for s in tables["sample"] if s["scene_token"] == scene["token"]]
        for _ in range(1 + g % 3):
            i = len(tables["instance"])
            cls = CLASSES[i % len(CLASSES)]
            anns = [_token("sample_annotation", i * 100 + k) for k in range(len(samples))]
            tables["instance"].append({
                "token": _token("instance", i), "nbr_annotations": len(anns),
                "category_token": _token("category", CLASSES.index(cls)),
                "first_annotation_token": anns[0], "last_annotation_token": anns[-1]})
            for k, (sample, ann) in enumerate(zip(samples, anns, strict=True)):
                centre, size = _floats(rng, 3, 0, 2500), _floats(rng, 3, 0.5, 5)
                yaw = float(rng.uniform(-3.1, 3.1))
                tables["sample_annotation"].append({
                    "token": ann, "num_lidar_pts": int(rng.integers(0, 400)), "size": size,
                    "sample_token": sample["token"], "rotation": _floats(rng, 4),
                    "prev": anns[k - 1] if k else "", "translation": centre,
                    "num_radar_pts": 0, "attribute_tokens": [_token("attribute", i % 3)],
                    "next": anns[k + 1] if k + 1 < len(anns) else "",
                    "instance_token": _token("instance", i), "visibility_token": "4"})
                boxes.setdefault(sample["token"], []).append(
                    " ".join(str(v) for v in [*centre, *size, yaw]) + f" {cls}")
    rows = [f"{s['token']},{' '.join(boxes[s['token']])}\n" for s in tables["sample"]]
    rng.shuffle(rows)
    return "Id,PredictionString\n" + "".join(rows)


def lyft_download(logs: int = 8, per_scene: int = 2, seed: int = 0) -> dict[str, str]:
    """The training half of Lyft's download (path -> text): train.csv, train_data/*.json,
    the camera and lidar files, the map raster."""
    rng = np.random.default_rng(seed)
    tables: dict[str, list[dict[str, Any]]] = {
        **_fixed_tables(), **_scenes(logs, per_scene), "sample_data": [], "ego_pose": [],
        "calibrated_sensor": [], "instance": [], "sample_annotation": []}
    files = _sensor_data(rng, tables)
    train_csv = _objects(rng, tables)
    tables["map"] = [{"log_tokens": [log["token"] for log in tables["log"]],
                      "category": "semantic_prior", "filename": "maps/map_raster_palo_alto.png",
                      "token": _token("map", 0)}]
    for name in ("sample", "sample_data", "ego_pose", "calibrated_sensor", "instance",
                 "sample_annotation"):
        tables[name] = _shuffled(rng, tables[name])
    return {"train.csv": train_csv,
            **{f"train_data/{name}.json": json.dumps(records)
               for name, records in sorted(tables.items())},
            **files, "train_maps/map_raster_palo_alto.png": "png map raster of Palo Alto",
            "test_maps/map_raster_palo_alto.png": "png map raster of Palo Alto"}


LAYOUTS: dict[str, dict[str, Any]] = {
    f"kaggle/{SLUG}": {
        "sources": mle(SLUG, "reads train.csv (Id: a sample's token, PredictionString: its "
                       "objects, eight tokens each) and train_data/*.json (log, scene, sample, "
                       "sample_data, ego_pose, calibrated_sensor, sample_annotation, instance, "
                       "attribute, category, sensor, visibility, map); copies train_images/"
                       "*.jpeg, train_lidar/*.bin and train_maps/map_raster_palo_alto.png; "
                       "splits the logs 8:2, a sample's scene_token being its log's token. "
                       "The raw test side (test_data/, test_images/, test_lidar/) is not read "
                       "and left out but for its sample_submission.csv and map"),
        "fixture": {"tables": [
            {"path": "sample_submission.csv", "rows": 8, "columns": {
                "Id": "seq:f{i:063x}", "PredictionString": "const:"}}],
            "extra": lyft_download()},
    },
}
