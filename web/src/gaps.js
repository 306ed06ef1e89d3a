// The gap markers of a module, read the same way as labs/gaps.py reads them.

const OPEN = /^([ \t]*)# --- gap (L\d\d\.[a-z][a-z0-9_]*) ---[ \t]*$/;
const CLOSE = /^[ \t]*# --- end gap ---[ \t]*$/;

/**
 * The gaps of a text: [{id, from, to, openLine, closeLine}], where from..to spans the body
 * (from the start of its first line to the end of its last line, without the final newline).
 * Unpaired markers end the scan: what was found so far is returned.
 */
export function findGaps(text) {
  const gaps = [];
  let position = 0;
  let open = null;
  const lines = text.split("\n");
  lines.forEach((line, index) => {
    const start = position;
    position += line.length + 1;
    const opened = OPEN.exec(line);
    if (opened && !open) {
      open = { id: opened[2], openLine: index + 1, from: position };
    } else if (CLOSE.test(line) && open) {
      gaps.push({ ...open, closeLine: index + 1, to: Math.max(open.from, start - 1) });
      open = null;
    }
  });
  return gaps;
}

/** A body as stored: dedented, trailing spaces and blank edge lines removed, one final newline. */
export function normalize(body) {
  const lines = body.split("\n").map((line) => line.replace(/\s+$/, ""));
  while (lines.length && !lines[0]) lines.shift();
  while (lines.length && !lines[lines.length - 1]) lines.pop();
  const indents = lines.filter((line) => line.trim()).map((line) => line.match(/^[ \t]*/)[0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  const text = lines.map((line) => line.slice(cut)).join("\n");
  return lines.length ? `${text}\n` : "";
}

/** The normalized body of every gap in a text, as {id: body}. */
export function bodies(text) {
  const result = {};
  for (const gap of findGaps(text)) result[gap.id] = normalize(text.slice(gap.from, gap.to));
  return result;
}
