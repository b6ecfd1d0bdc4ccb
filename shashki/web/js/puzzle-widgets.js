// Small pieces the puzzle pages share (the trainer, the history, the lobby's daily puzzle): the
// stylesheet loaded on demand, a theme's name, a rating change with its sign.

import { h } from "./dom.js";
import { has, t } from "./i18n.js";

export function loadPuzzleStyle() {
  if (document.getElementById("puzzle-css")) return;
  document.head.append(h("link", { rel: "stylesheet", id: "puzzle-css", href: "/static/puzzle.css" }));
}

/** A theme's name in the player's language (a theme the catalogue does not know yet: its key). */
export function themeName(key) {
  return has(`puzzle.theme.${key}`) ? t(`puzzle.theme.${key}`) : key;
}

/** A rating change with its sign: "+12", "−7" (a true minus sign), "±0". */
export function signed(delta) {
  const n = Math.round(Number(delta) || 0);
  if (n > 0) return `+${n}`;
  if (n < 0) return `−${-n}`;
  return "±0";
}
