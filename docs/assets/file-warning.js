// Opened from disk (file://), browsers refuse the module worker that runs Python: say how to serve the site.
(function () {
  if (location.protocol !== "file:") return;
  function warn() {
    if (document.getElementById("ember-file-warning")) return;
    var box = document.createElement("div");
    box.id = "ember-file-warning";
    box.className = "ember-file-warning";
    box.setAttribute("role", "alert");
    var title = document.createElement("strong");
    title.textContent = "This course needs a small web server. ";
    var text = document.createElement("span");
    text.textContent = "Browsers do not run Python for pages opened straight from disk. In the folder that holds this site, run: " +
      "python3 -m http.server --bind 127.0.0.1 8000 — then open http://127.0.0.1:8000/ in your browser.";
    box.appendChild(title);
    box.appendChild(text);
    document.body.insertBefore(box, document.body.firstChild);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", warn);
  else warn();
})();
