// @ts-check
// Building the page's elements, and saving a file of the learner's: helpers every part of the page code uses.

/**
 * A new element: ``attrs`` become its attributes ("class" its class name, "text" its text, "on…" a
 * listener; false, null and undefined are left out, true is an empty attribute), then ``children`` are
 * appended (falsy ones skipped).
 *
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any>} [attrs]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== false && value !== null && value !== undefined)
      node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

/**
 * Save data as a file of the learner's, under ``name`` (the browser's download): the one way the page code does it.
 *
 * @param {Blob} data
 * @param {string} name
 */
export function saveFile(data, name) {
  const href = URL.createObjectURL(data);
  const link = el("a", { href, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60_000); // long after the browser took it
}
