// @ts-check
// Ids of gaps, claims and questions: a lesson and a name, "L10.backward", in the format labs/course/gaps.py owns.
// The one place the page code takes an id apart.

/**
 * The lesson and the name of an id: ["L10", "backward"] for "L10.backward", ["L10", ""] for "L10".
 *
 * @param {string} id
 * @returns {[string, string]}
 */
export function splitId(id) {
  const dot = id.indexOf(".");
  return dot === -1 ? [id, ""] : [id.slice(0, dot), id.slice(dot + 1)];
}

/**
 * The lesson an id belongs to: "L10" for "L10.backward" (as labs/course/gaps.py's lesson_of).
 *
 * @param {string} id
 * @returns {string}
 */
export function lessonOf(id) {
  return splitId(id)[0];
}
