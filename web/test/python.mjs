// @ts-check
// What the course's Python answers (web/test/python_side.py), for the tests that hold the page to it.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const VENV = fileURLToPath(new URL("../../.venv/bin/python", import.meta.url));

/**
 * @typedef {{
 *   ids: { id: string, lesson: string, parts: [string, string] }[],
 *   orders: { seed: string, key: string, ids: string[], order: string[] }[],
 *   ranks: { text: string, rank: number }[],
 *   seeds: { pattern: string, fallback: string, samples: { text: string, isSeed: boolean }[] },
 * }} PythonFacts
 */

/**
 * Run one of the Python sides beside the tests (the project's .venv, else EMBER_PYTHON or python3) with `args`,
 * and answer what it printed.
 *
 * @param {string} script  a file of web/test/
 * @param {string[]} [args]
 * @returns {string}
 */
export function runPython(script, args = []) {
  const python = process.env.EMBER_PYTHON ?? (existsSync(VENV) ? VENV : "python3");
  return execFileSync(python, [`web/test/${script}`, ...args], {
    cwd: ROOT,
    encoding: "utf-8",
    env: { ...process.env, PYTHONPATH: ROOT },
  });
}

/**
 * What the course's Python answers about ids, option orders and seeds (web/test/python_side.py), run once.
 *
 * @returns {PythonFacts}
 */
export function pythonFacts() {
  return JSON.parse(runPython("python_side.py"));
}
