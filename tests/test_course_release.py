"""The course's release: the number that orders the site's builds, which course versions (digests) cannot."""

from __future__ import annotations

import json
from pathlib import Path

from labs.course.model import load_course
from labs.frontends.website import course_data, write_course_json
from scripts.build_site import course_release


def manifest(folder: Path, version: str, release: object) -> Path:
    path = folder / "manifest.json"
    path.write_text(json.dumps({"version": version, "release": release}))
    return path


def test_a_first_build_is_released_now(tmp_path: Path) -> None:
    assert course_release("abc", tmp_path / "missing.json", now=lambda: 1700.9) == 1700


def test_building_the_same_version_again_keeps_its_release(tmp_path: Path) -> None:
    assert course_release("abc", manifest(tmp_path, "abc", 1500), now=lambda: 1700) == 1500


def test_another_version_is_released_later_than_the_last_even_when_the_clock_is_behind(tmp_path: Path) -> None:
    assert course_release("new", manifest(tmp_path, "abc", 1500), now=lambda: 1700) == 1700
    assert course_release("new", manifest(tmp_path, "abc", 1500), now=lambda: 1200) == 1501


def test_an_unreadable_last_manifest_means_a_release_of_now(tmp_path: Path) -> None:
    broken = tmp_path / "manifest.json"
    broken.write_text("{not json")
    assert course_release("abc", broken, now=lambda: 1700) == 1700
    assert course_release("abc", manifest(tmp_path, "abc", "soon"), now=lambda: 1700) == 1700
    assert course_release("abc", manifest(tmp_path, "abc", True), now=lambda: 1700) == 1700


def test_course_json_carries_the_release(tmp_path: Path) -> None:
    course = load_course()
    assert course_data(course, {}, "v1", 1234)["release"] == 1234
    write_course_json(tmp_path / "gen" / "course.json", course, {}, "v1", 1234)
    written = json.loads((tmp_path / "gen" / "course.json").read_text())
    assert (written["version"], written["release"]) == ("v1", 1234)
