// A rematch: the same terms, colours swapped. The offer stands on the finished game's state
// (`rematch: {offer, game_id}`); once the new game exists, both players are taken to it. Or, as lichess's
// "New opponent": a seek on the same terms, which waits in the lobby unless a seek there fits it at once.
// A simul's or a tournament's game has neither (as on lichess: the server refuses its rematch, `simul_game`,
// `tournament_rematch`; the tournament pairs its players again).

import { api, ApiError } from "./api.js";
import { h, toast } from "./dom.js";
import { t } from "./i18n.js";
import { navigate } from "./router.js";

/** The rematch controls of a finished game for the player `ctx.myColor`: `button(id, label, onClick, cls)`
 * adds a button, `items` takes anything else. None for a simul's game (the host plays its games once) or a
 * tournament's (the tournament pairs its players). */
export function rematchControls(ctx, button, items) {
  if (ctx.game.simul || ctx.game.tournament) return;
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

/** The terms of a finished game as a seek's body (lichess's "New opponent"), or null for a game a seek
 * cannot repeat: against the computer, in a tournament or a simul, or from a position set up. */
export function seekLike(game) {
  if (game.white.computer || game.black.computer || game.tournament || game.simul || game.initial_fen) return null;
  const clocks = game.clocks;
  return {
    variant: game.variant,
    double_diagonal: !!game.double_diagonal,
    rated: !!game.rated,
    time_control: clocks ? { minutes: clocks.initial_ms / 60000, increment: Math.round(clocks.increment_ms / 1000) } : null,
    days: game.correspondence ? game.correspondence.days_per_move : null,
  };
}

export async function seekNewOpponent(game) {
  try {
    const data = await api("POST", "/api/seeks", seekLike(game));
    navigate(data.game ? `/game/${data.game.id}` : "/");
  } catch (e) {
    toast(e instanceof ApiError ? e.message : String(e), "error");
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
