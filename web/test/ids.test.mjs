// @ts-check
// How an id names its lesson: web/src/base/ids.js against labs/course/gaps.py, over every id of the course.
import assert from "node:assert/strict";
import { test } from "node:test";
import { lessonOf, splitId } from "./modules.mjs";
import { pythonFacts } from "./python.mjs";

test("the page reads the lesson of every id as Python does", () => {
  const { ids } = pythonFacts();
  assert.ok(ids.length > 100, `only ${ids.length} ids`);
  for (const { id, lesson, parts } of ids) {
    assert.equal(lessonOf(id), lesson, id);
    assert.deepEqual(splitId(id), parts, id);
  }
});
