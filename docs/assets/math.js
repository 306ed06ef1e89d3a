// Render the math of each page with the site's own copy of KaTeX.
(function () {
  function render() {
    if (!window.renderMathInElement) return;
    document.querySelectorAll(".arithmatex").forEach(function (node) {
      window.renderMathInElement(node, {
        delimiters: [
          { left: "\\(", right: "\\)", display: false },
          { left: "\\[", right: "\\]", display: true },
        ],
        throwOnError: false,
      });
    });
  }
  if (window.document$) window.document$.subscribe(render);
  else document.addEventListener("DOMContentLoaded", render);
})();
