// Move confirmation, an option of correspondence games (as lichess offers it): a move made on the board or
// typed is first shown with "Confirm" and "Cancel"; only a confirmed move goes to the server. The choice is
// kept in this browser (on by default). Self-contained: the game page calls `confirmMove` from the one
// function that sends moves (Actions.sendMove in game-actions.js) and places `confirmOption` in its info.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const KEY = "shashki.confirmCorrespondenceMoves";
let open = null; // the bar on screen: {el, cancel}

export function confirmWanted(game) {
  if (!game || !game.correspondence) return false;
  try {
    return localStorage.getItem(KEY) !== "0";
  } catch {
    return true;
  }
}

/** The option's checkbox, for a correspondence game's info box (null for other games). */
export function confirmOption(game) {
  if (!game || !game.correspondence) return null;
  const box = h("input", { type: "checkbox", id: "confirm-moves", checked: confirmWanted(game) });
  box.addEventListener("change", () => {
    try {
      localStorage.setItem(KEY, box.checked ? "1" : "0");
    } catch {
      /* private mode: the choice lasts for the page only */
    }
  });
  return h("p", {}, h("label", { class: "check" }, box, t("corr.confirmOption")));
}

/**
 * Ask to confirm `move` in `game`: `send()` runs once confirmed, `cancel()` (which puts the position back)
 * if cancelled. Returns false when no confirmation is wanted: the caller sends the move itself.
 */
export function confirmMove(game, move, send, cancel) {
  if (!confirmWanted(game)) return false;
  if (open) open.cancel();
  const done = (action) => () => {
    el.remove();
    open = null;
    action();
  };
  const el = h(
    "div",
    { class: "move-confirm", id: "move-confirm", role: "group", "aria-label": t("corr.confirmAsk", { move }) },
    h("span", {}, t("corr.confirmAsk", { move })),
    h("button", { type: "button", id: "move-confirm-yes", onClick: () => done(send)() }, t("corr.confirm")),
    h("button", { type: "button", class: "secondary", id: "move-confirm-no", onClick: () => done(cancel)() }, t("corr.cancel"))
  );
  open = { el, cancel: done(cancel) };
  const area = document.querySelector(".game-page .board-area") || document.getElementById("view");
  area.append(el);
  el.querySelector("#move-confirm-yes").focus();
  return true;
}
