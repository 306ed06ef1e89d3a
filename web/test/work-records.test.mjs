// @ts-check
// The saved state's records: the page's store (web/src/work/records.js, store.js, answers.js) and the work file's
// Python (labs/work/records.py, through web/test/work_records_side.py) give the same verdict on every record, both
// reading labs/data/work_records.json; and the test fails when one side judges a field by another kind.
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkRecord, everRight, RECORDS, readsAs, storage } from "./modules.mjs";
import { runPython } from "./python.mjs";

/**
 * @typedef {{ record: string, value: any, verdict: any, everRight?: boolean }} RecordCase
 * @typedef {{ records: RecordCase[], tables: { table: string, entry: any, reads: boolean }[] }} PythonVerdicts
 */

/**
 * A value as JSON carries it, NaN and the infinities given back ({"$number": "NaN"} is NaN).
 *
 * @param {string} text
 */
function decoded(text) {
  return JSON.parse(text, (_key, value) =>
    value && typeof value === "object" && Object.keys(value).length === 1 && typeof value.$number === "string"
      ? Number(value.$number)
      : value,
  );
}

/**
 * Python's verdicts (the project's .venv, else EMBER_PYTHON or python3), with `flips` ("answer.correct=text")
 * applied on Python's side only.
 *
 * @param {string[]} [flips]
 * @returns {PythonVerdicts}
 */
function pythonVerdicts(flips = []) {
  return decoded(runPython("work_records_side.py", flips));
}

/**
 * The page's verdict on a record, as JSON stores it.
 *
 * @param {string} record
 * @param {unknown} value
 * @param {import("../src/work/records.js").Shape} [shape]
 */
function pageVerdict(record, value, shape = RECORDS) {
  return stored(checkRecord(record, value, shape));
}

/**
 * A verdict as JSON stores it (-0 as 0; never NaN, which no kept record holds).
 *
 * @param {any} verdict
 */
function stored(verdict) {
  return JSON.parse(JSON.stringify(verdict));
}

/**
 * The cases where the page's verdict differs from Python's, judged by the page with `shape`.
 *
 * @param {PythonVerdicts} python
 * @param {import("../src/work/records.js").Shape} [shape]
 */
function disagreements(python, shape = RECORDS) {
  return python.records.filter((item) => {
    const mine = pageVerdict(item.record, item.value, shape);
    try {
      assert.deepEqual(mine, stored(item.verdict));
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * @param {string} record
 * @param {string} field
 * @param {string} kind
 */
function flippedShape(record, field, kind) {
  const shape = structuredClone(RECORDS);
  shape.records[record][field].kind = kind;
  return shape;
}

const PYTHON = pythonVerdicts();

test("the page and the work file give the same verdict on every record, and keep the same value", () => {
  assert.ok(PYTHON.records.length > 500, "the Python side gave its cases");
  const kinds = new Set(PYTHON.records.map((item) => `${item.record}:${item.verdict.kept}`));
  for (const record of Object.keys(RECORDS.records)) {
    assert.ok(kinds.has(`${record}:true`) && kinds.has(`${record}:false`), `${record}s kept and refused`);
  }
  for (const item of PYTHON.records) {
    assert.deepEqual(
      pageVerdict(item.record, item.value),
      stored(item.verdict),
      `${item.record} ${JSON.stringify(item.value)}`,
    );
  }
});

test("both sides refuse NaN, the infinities, negative times, times and counts past their limits", () => {
  const refused = PYTHON.records.filter((item) => !item.verdict.kept).map((item) => item.value);
  for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1, 8_640_000_000_000_001]) {
    assert.ok(
      refused.some((value) => value && Object.is(value.at, bad)),
      `a lesson's progress with at = ${bad} is refused`,
    );
  }
  assert.ok(refused.some((value) => value && value.passed === 10_001));
  assert.deepEqual(checkRecord("progress", { passed: 1, total: 2, done: false, at: -1 }), {
    kept: false,
    field: "at",
    says: "must be a time (milliseconds since 1970)",
  });
});

test("'ever right' is one rule: the page's status and the work file's merge agree on every answer", () => {
  const answers = PYTHON.records.filter((item) => item.everRight !== undefined);
  assert.ok(answers.some((item) => item.everRight) && answers.some((item) => !item.everRight));
  for (const item of answers) {
    assert.equal(everRight(item.value), item.everRight, JSON.stringify(item.value));
    assert.equal(storage.questionStatus(item.value) === "right", item.everRight, JSON.stringify(item.value));
  }
});

test("the store keeps a table's entry exactly when the work file's Python does", () => {
  for (const item of PYTHON.tables) {
    assert.equal(readsAs(item.table, item.entry), item.reads, `${item.table} ${JSON.stringify(item.entry)}`);
    const { state, unreadable } = storage.validate(JSON.stringify({ [item.table]: { key: item.entry } }));
    const kept = /** @type {Record<string, any>} */ (state)[item.table]?.key;
    assert.equal(kept !== undefined, item.reads, `stored ${item.table} ${JSON.stringify(item.entry)}`);
    assert.equal(unreadable.length, item.reads ? 0 : 1);
  }
  for (const item of PYTHON.records.filter((one) => one.record === "answer")) {
    const raw = JSON.stringify({ answers: { "L10.bfs": item.value } });
    if (raw.includes("$number")) continue; // NaN: not JSON, never stored
    const { state } = storage.validate(raw);
    assert.deepEqual(stored(state).answers["L10.bfs"], item.verdict.kept ? stored(item.verdict.value) : undefined);
  }
});

test("a field judged by another kind on the page's side only is caught", () => {
  const found = disagreements(PYTHON, flippedShape("progress", "done", "count"));
  assert.ok(found.length > 0);
  assert.ok(found.every((item) => item.record === "progress"));
});

test("a field judged by another kind on the work file's side only is caught", () => {
  const found = disagreements(pythonVerdicts(["answer.correct=text"]));
  assert.ok(found.length > 0);
  assert.ok(found.every((item) => item.record === "answer"));
  assert.deepEqual(disagreements(PYTHON), []);
});
