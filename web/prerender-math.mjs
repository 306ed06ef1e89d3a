// Render the math of every built page with KaTeX once, at build time: the pages then carry their
// formulas as HTML (KaTeX's style sheet and fonts draw them), and no page runs KaTeX while Python starts.
// Usage: node web/prerender-math.mjs SITE_DIR  (MkDocs' pages, after `mkdocs build`; the notebook app
// under SITE_DIR/notebook/ is left alone).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import katex from "katex";

// pymdownx.arithmatex (generic): \( … \) in a span, \[ … \] in a div; the TeX is HTML-escaped.
const MATH = /<(span|div) class="arithmatex">\\([([])([\s\S]*?)\\[)\]]<\/\1>/g;
/** @type {Record<string, string>} */
const ENTITIES = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&#x27;": "'" };

/**
 * The text of HTML-escaped TeX, as arithmatex writes it, with the entities it uses undone.
 *
 * @param {string} text
 * @returns {string}
 */
export function unescapeHtml(text) {
  return text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (entity) => ENTITIES[entity]);
}

/**
 * The page's HTML with each arithmatex element's TeX rendered; fails on TeX that KaTeX refuses.
 *
 * @param {string} html
 * @param {string} [where]  the page's path, for the error
 * @returns {string}
 */
export function renderPage(html, where = "") {
  return html.replace(MATH, (_, tag, open, tex) => {
    const source = unescapeHtml(tex).trim();
    let rendered;
    try {
      rendered = katex.renderToString(source, {
        displayMode: open === "[",
        throwOnError: true,
        output: "htmlAndMathml",
      });
    } catch (error) {
      throw new Error(`${where}: KaTeX cannot render ${JSON.stringify(source)}: ${error.message}`);
    }
    return `<${tag} class="arithmatex">${rendered}</${tag}>`;
  });
}

// KaTeX's fonts that most math uses, each with the class that shows a page uses it. The style sheet asks
// for a font only once the page is laid out, and its arrival lays the whole page out again (on lesson 10,
// 50-60 ms of the page's thread beside Python's start); asked for from the head, they come with the page.
// Rarer fonts (sizes, sans-serif) still come through the style sheet.
const MATH_FONTS = [
  ['class="katex"', "KaTeX_Main-Regular.woff2"],
  ['class="mord mathnormal', "KaTeX_Math-Italic.woff2"],
];
const FONT_FOLDER = "assets/gen/katex/fonts";
const STYLE_SHEET = '<link rel="stylesheet"';

/**
 * The page with preload links for the MATH_FONTS its math uses, before its first style sheet.
 *
 * @param {string} html
 * @param {string} fonts  the fonts' folder, relative to the page
 * @param {string} [where]  the page's path, for the error
 * @returns {string}
 */
export function preloadFonts(html, fonts, where = "") {
  const at = html.indexOf(STYLE_SHEET);
  if (at === -1) throw new Error(`${where}: a page with math has no style sheet to ask for its fonts before`);
  const links = MATH_FONTS.filter(([mark]) => html.includes(mark)).map(
    ([, font]) => `<link rel="preload" href="${fonts}/${font}" as="font" type="font/woff2" crossorigin>`,
  );
  return html.slice(0, at) + links.join("") + html.slice(at);
}

/**
 * The HTML pages under a folder, at every depth, but for those under `skip`.
 *
 * @param {string} folder
 * @param {string} skip
 * @returns {Generator<string>}
 */
function* pages(folder, skip) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory() && path !== skip) yield* pages(path, skip);
    else if (entry.isFile() && entry.name.endsWith(".html")) yield path;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const site = process.argv[2];
  const notebook = join(site, "notebook");
  let formulas = 0;
  const left = [];
  for (const path of pages(site, notebook)) {
    const html = readFileSync(path, "utf8");
    const count = (html.match(MATH) || []).length;
    const rendered = count ? renderPage(html, path) : html;
    if (rendered.includes('class="arithmatex">\\')) left.push(path); // math the pattern did not match
    if (!count) continue;
    writeFileSync(path, preloadFonts(rendered, relative(dirname(path), join(site, FONT_FOLDER)), path));
    formulas += count;
  }
  if (left.length) throw new Error(`math left unrendered in ${left.join(", ")}`);
  console.log(`  ${formulas} formulas rendered with KaTeX ${katex.version}`);
}
