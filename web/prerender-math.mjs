// Render the math of every built page with KaTeX once, at build time: the pages then carry their
// formulas as HTML (KaTeX's style sheet and fonts draw them), and no page runs KaTeX while Python starts.
// Usage: node web/prerender-math.mjs SITE_DIR  (MkDocs' pages, after `mkdocs build`; the notebook app
// under SITE_DIR/notebook/ is left alone).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import katex from "katex";

// pymdownx.arithmatex (generic): \( … \) in a span, \[ … \] in a div; the TeX is HTML-escaped.
const MATH = /<(span|div) class="arithmatex">\\([([])([\s\S]*?)\\[)\]]<\/\1>/g;
const ENTITIES = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&#x27;": "'" };

export function unescapeHtml(text) {
  return text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (entity) => ENTITIES[entity]);
}

/** The page's HTML with each arithmatex element's TeX rendered; fails on TeX that KaTeX refuses. */
export function renderPage(html, where = "") {
  return html.replace(MATH, (_, tag, open, tex) => {
    const source = unescapeHtml(tex).trim();
    let rendered;
    try {
      rendered = katex.renderToString(source, { displayMode: open === "[", throwOnError: true, output: "htmlAndMathml" });
    } catch (error) {
      throw new Error(`${where}: KaTeX cannot render ${JSON.stringify(source)}: ${error.message}`);
    }
    return `<${tag} class="arithmatex">${rendered}</${tag}>`;
  });
}

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
    writeFileSync(path, rendered);
    formulas += count;
  }
  if (left.length) throw new Error(`math left unrendered in ${left.join(", ")}`);
  console.log(`  ${formulas} formulas rendered with KaTeX ${katex.version}`);
}
