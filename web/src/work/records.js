// @ts-check
// The records of the learner's saved state (a piece, an answer, a lesson's progress, a rival text), checked by their
// shape as labs/data/work_records.json states it once for both sides: the work file's Python (labs/work/records.py)
// reads the same file, and web/test/work-records.test.mjs holds the two to the same verdicts.
import SHAPE from "../../../labs/data/work_records.json" with { type: "json" };

/**
 * @typedef {{ is: "text" | "flag" | "texts" | "whole" | "number", min?: number, max?: number, says: string }} Kind
 * @typedef {{ kind: string, required?: boolean }} Field
 * @typedef {{
 *   kinds: Record<string, Kind>,
 *   records: Record<string, Record<string, Field>>,
 *   tables: Record<string, { record: string, list?: boolean }>,
 *   not_a_record: string,
 *   ever_right: Record<string, unknown>[],
 * }} Shape
 * @typedef {{ kept: true, value: any } | { kept: false, field: string | null, says: string }} Verdict
 */

/** The records' shape, as the data states it. */
export const RECORDS = /** @type {Shape} */ (/** @type {unknown} */ (SHAPE));

/**
 * @param {unknown} value
 * @returns {value is Record<string, any>}
 */
function isTable(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Whether a value is of a kind.
 *
 * @param {Kind} kind
 * @param {unknown} value
 */
function isOf(kind, value) {
  switch (kind.is) {
    case "text":
      return typeof value === "string";
    case "flag":
      return typeof value === "boolean";
    case "texts":
      return Array.isArray(value) && value.every((item) => typeof item === "string");
    default: {
      if (typeof value !== "number" || Number.isNaN(value)) return false;
      if (value < (kind.min ?? -Infinity) || value > (kind.max ?? Infinity)) return false;
      return kind.is === "number" || Number.isInteger(value);
    }
  }
}

/**
 * A record of kind `record` ("piece", "answer", "progress", "rival") checked: kept as it is (fields the shape does
 * not list included), or refused with the first field that is wrong (null: the record itself) and what it must be.
 *
 * @param {string} record
 * @param {unknown} value
 * @param {Shape} [shape]
 * @returns {Verdict}
 */
export function checkRecord(record, value, shape = RECORDS) {
  if (!isTable(value)) return { kept: false, field: null, says: shape.not_a_record };
  for (const [name, field] of Object.entries(shape.records[record])) {
    const kind = shape.kinds[field.kind];
    if (!Object.hasOwn(value, name)) {
      if (field.required) return { kept: false, field: name, says: kind.says };
    } else if (!isOf(kind, value[name])) return { kept: false, field: name, says: kind.says };
  }
  return { kept: true, value };
}

/**
 * Whether an entry of a table of the saved state ("pieces", "answers", "progress", "conflicts") reads: a record, or
 * for a table of lists a list of one or more records.
 *
 * @param {string} table
 * @param {unknown} entry
 * @param {Shape} [shape]
 */
export function readsAs(table, entry, shape = RECORDS) {
  const { record, list } = shape.tables[table];
  if (!list) return checkRecord(record, entry, shape).kept;
  return Array.isArray(entry) && entry.length > 0 && entry.every((item) => checkRecord(record, item, shape).kept);
}

/**
 * Whether a (checked) answer was ever right before the answer was shown: it matches one of the shape's
 * `ever_right` patterns (a list: one of its values; null: the field is absent).
 *
 * @param {object} entry
 * @param {Shape} [shape]
 */
export function everRight(entry, shape = RECORDS) {
  const answer = /** @type {Record<string, unknown>} */ (entry);
  return shape.ever_right.some((pattern) =>
    Object.entries(pattern).every(([name, wanted]) =>
      (Array.isArray(wanted) ? wanted : [wanted]).some((one) =>
        one === null ? answer[name] === undefined || answer[name] === null : answer[name] === one,
      ),
    ),
  );
}
