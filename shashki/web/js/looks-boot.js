// The looks chosen before (theme, board style, piece style), set on <html> before the first paint.
//
// A classic script, not a module: index.html loads it in <head> without `defer`, so it runs before the
// body is drawn and the page never flashes in the wrong theme. It reads what js/looks.js saved in
// localStorage (an account's own choices are saved there too once the server has sent them) and resolves
// the theme "auto" from the system's prefers-color-scheme, following it when it changes.
(function () {
  var root = document.documentElement;
  var looks = {};
  try {
    looks = JSON.parse(localStorage.getItem("shashki.looks") || "{}") || {};
  } catch (e) {
    looks = {};
  }
  var dark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function apply() {
    var theme = looks.theme === "light" || looks.theme === "dark" ? looks.theme : "auto";
    root.dataset.themeChoice = theme;
    root.dataset.theme = theme === "auto" ? (dark && dark.matches ? "dark" : "light") : theme;
    root.dataset.board = looks.board === "marine" ? "marine" : "wood";
    root.dataset.pieces = looks.pieces === "flat" ? "flat" : "ringed";
  }
  apply();
  if (dark && dark.addEventListener) {
    dark.addEventListener("change", function () {
      if (root.dataset.themeChoice === "auto") root.dataset.theme = dark.matches ? "dark" : "light";
    });
  }
})();
