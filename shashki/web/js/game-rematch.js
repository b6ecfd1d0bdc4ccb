// A rematch: the same terms, colours swapped. The offer stands on the finished game's state
// (`rematch: {offer, game_id}`); once the new game exists, both players are taken to it.

import { api, ApiError } from "./api.js";
import { h, toast } from "./dom.js";
import { t } from "./i18n.js";
import { navigate } from "./router.js";

/** The rematch controls of a finished game for the player `ctx.myColor`: `button(id, label, onClick, cls)`
 * adds a button, `items` takes anything else. */
export function rematchControls(ctx, button, items) {
  const rematch = ctx.game.rematch || {};
  const call = (path) => () => rematchCall(ctx.id, path);
  if (rematch.game_id) {
    items.push(h("a", { class: "button", id: "rematch-game", href: `/game/${rematch.game_id}` }, t("game.toRematch")));
  } else if (rematch.offer === ctx.myColor) {
    items.push(h("span", { class: "muted", id: "rematch-offered" }, t("game.rematchOffered")));
    button("rematch-cancel", t("lobby.cancel"), call("/rematch/decline"));
  } else if (rematch.offer) {
    items.push(h("span", { id: "rematch-offered-to-you" }, t("game.rematchOfferedToYou")));
    button("rematch-accept", t("game.acceptRematch"), call("/rematch/accept"), "");
    button("rematch-decline", t("game.declineDraw"), call("/rematch/decline"));
  } else {
    button("rematch", t("game.rematch"), call("/rematch"), "");
  }
}

async function rematchCall(id, path) {
  try {
    const data = await api("POST", `/api/games/${id}${path}`);
    if (data.game && data.game.id !== id) navigate(`/game/${data.game.id}`);
  } catch (e) {
    toast(e instanceof ApiError ? e.message : String(e), "error");
  }
}
