// What a player does in a game, over its socket: moves (typed or from the board; one at a time, until
// the server acknowledges it), resigning or aborting, draw offers, claiming victory when the opponent has
// gone; and the buttons everyone has (flip the board, sound, the PDN, a rematch and "Analyse" once the game
// is over).

import { analysisUrl } from "./analysis-url.js";
import { clear, fill, h } from "./dom.js";
import { errorText, t } from "./i18n.js";
import { OTHER } from "./game-clocks.js";
import { confirmMove } from "./game-confirm.js";
import { rematchControls, seekLike, seekNewOpponent } from "./game-rematch.js";
import { setSound, soundOn } from "./sound.js";

export class Actions {
  /**
   * `ctx`: the game page's shared state (id, game, myColor, features, isLive); `socket`: the game's socket;
   * `el`: {controls, offer}; `onFlip()` turns the board round; `onRefused()` puts the position back.
   */
  constructor(ctx, socket, el, { onFlip, onRefused }) {
    this.ctx = ctx;
    this.socket = socket;
    this.el = el;
    this.onFlip = onFlip;
    this.onRefused = onRefused;
    this.pending = null; // {id, move, ply} of a move sent and not yet answered
    this.requestId = 0;
    this.lagMs = 0;
    this.opponentGoneSince = null;
    this.claimShown = null; // whether the claim button (true) or its countdown (false) is on screen
    // The one-shot button clicked ({name, id} of its request): disabled until the next state (or the request's
    // refusal) redraws the controls, so that a double click asks once (two takebacks against the computer).
    this.oneShot = null;
    this.onTyped = null; // what Enter in the move box does with the text, when not simply sending it
    this.input = h("input", {
      id: "move-text",
      placeholder: t("game.typeMove", { example: "c3-d4" }),
      autocomplete: "off",
      autocapitalize: "off",
      spellcheck: "false",
      "aria-label": t("game.typeMove", { example: "c3-d4" }),
    });
    this.error = h("p", { class: "error", id: "move-error", hidden: true });
    this.form = h(
      "form",
      {
        class: "move-form",
        id: "move-form",
        onSubmit: (e) => {
          e.preventDefault();
          const text = this.input.value.trim();
          if (text && this.onTyped) this.onTyped(text);
          else if (text) this.sendMove(text);
        },
      },
      this.input,
      h("button", { type: "submit" }, t("game.play"))
    );
  }

  /** The example in the move box, in the variant's own notation. */
  setExample(variant) {
    const example = variant.algebraic ? "c3-d4" : variant.board_size === 10 ? "32-28" : "22-18";
    this.input.placeholder = t("game.typeMove", { example });
    this.input.setAttribute("aria-label", this.input.placeholder);
  }

  focusMoveBox() {
    this.input.focus();
  }

  // -- to the server ---------------------------------------------------------------------------------

  sendMove(text, confirmed = false) {
    const { game, myColor } = this.ctx;
    if (!game || !myColor || this.pending) return;
    // Correspondence move confirmation (game-confirm.js): the move waits for "Confirm"; "Cancel" puts it back.
    if (!confirmed && confirmMove(game, text, () => this.sendMove(text, true), () => this.onRefused())) return;
    this.error.hidden = true;
    this.pending = { id: ++this.requestId, move: text, ply: game.ply };
    this.socket.send({ type: "move", move: text, ply: game.ply, id: this.pending.id, lag_ms: this.lagMs });
    this.input.value = "";
  }

  send(type) {
    this.socket.send({ type, id: ++this.requestId });
    return this.requestId;
  }

  // -- from the server -------------------------------------------------------------------------------

  /** The connection came or went: the answer to a move may have been lost with it; the next state tells. */
  connection(connected) {
    if (connected && this.pending) this.pending = null;
  }

  acknowledged(message) {
    if (this.pending && message.id === this.pending.id) this.pending = null;
  }

  /** An error for the move in flight is shown by the move box (true); others are not ours (false). */
  refused(message) {
    if (this.oneShot && message.id === this.oneShot.id) {
      this.oneShot = null; // refused: the button may be clicked again
      this.drawControls();
    }
    if (!this.pending || message.id !== this.pending.id) return false;
    const error = message.error || {};
    this.pending = null;
    this.error.textContent = errorText(error);
    this.error.hidden = false;
    this.onRefused();
    return true;
  }

  stateChanged(next, moved, receivedAt) {
    const { myColor } = this.ctx;
    if (this.pending && next.ply > this.pending.ply) this.pending = null;
    this.oneShot = null; // the controls are drawn anew for this state
    if (myColor && next.side_to_move === OTHER[myColor] && next.mover_disconnected_ms) {
      this.opponentGoneSince = receivedAt - next.mover_disconnected_ms;
    }
    if (moved) this.error.hidden = true;
  }

  presenceChanged(message) {
    const { myColor } = this.ctx;
    if (!myColor) return;
    const opponent = OTHER[myColor];
    if (message[opponent] === false && this.opponentGoneSince === null) this.opponentGoneSince = performance.now();
    if (message[opponent]) this.opponentGoneSince = null;
  }

  // -- claiming victory ------------------------------------------------------------------------------
  // Victory may be claimed once the opponent has been gone long enough on their own turn (the server
  // decides; this only shows when to ask). null: nothing to claim — also before each side has moved,
  // when the game is aborted instead, and in a game without a clock, played at leisure.

  claimSecondsLeft() {
    const { game, myColor } = this.ctx;
    if (!myColor || !this.ctx.isLive() || game.ply < 2 || game.claim_victory_after_ms == null) return null;
    const opponent = OTHER[myColor];
    if (game.side_to_move !== opponent || game[opponent].computer || this.opponentGoneSince === null) return null;
    return Math.ceil((game.claim_victory_after_ms - (performance.now() - this.opponentGoneSince)) / 1000);
  }

  tickClaim() {
    // Controls are redrawn only when the claim button comes or goes, so no click is lost to a redraw.
    const left = this.claimSecondsLeft();
    const ready = left === null ? null : left <= 0;
    if (ready !== this.claimShown) this.drawControls();
    else if (left !== null && !ready) {
      const wait = this.el.controls.querySelector("#claim-wait");
      if (wait) wait.textContent = t("game.opponentGone", { seconds: left });
    }
  }

  // -- drawing ---------------------------------------------------------------------------------------

  /** The move box, the draw offer and the takeback asked for, shown to a player while the game is live. */
  drawOffer() {
    const { game, myColor } = this.ctx;
    const live = this.ctx.isLive();
    this.form.hidden = !(live && myColor);
    if (!(live && myColor)) this.error.hidden = true;
    const offer = game.draw_offer;
    const takeback = game.takeback_offer;
    const box = this.el.offer;
    box.hidden = !(live && myColor && (offer || takeback));
    if (box.hidden) return;
    clear(box);
    const line = (...parts) => box.append(h("p", { class: "offer-line" }, ...parts));
    if (offer === myColor) line(t("game.drawOffered"));
    else if (offer) {
      line(
        h("span", {}, t("game.drawOfferedToYou")),
        h("button", { id: "accept-draw", onClick: () => this.send("draw-accept") }, t("game.acceptDraw")),
        h("button", { class: "secondary", id: "decline-draw", onClick: () => this.send("draw-decline") }, t("game.declineDraw"))
      );
    }
    // A takeback asked for (as on lichess): the asker may withdraw it, the opponent agrees or declines.
    if (takeback === myColor) {
      line(
        h("span", {}, t("game.takebackOffered")),
        h("button", { class: "secondary", id: "cancel-takeback", onClick: () => this.send("takeback-decline") }, t("game.cancelTakeback"))
      );
    } else if (takeback) {
      line(
        h("span", {}, t("game.takebackOfferedToYou")),
        h("button", { id: "accept-takeback", onClick: () => this.send("takeback-accept") }, t("game.acceptTakeback")),
        h("button", { class: "secondary", id: "decline-takeback", onClick: () => this.send("takeback-decline") }, t("game.declineTakeback"))
      );
    }
  }

  /** Whether the player may ask to take their last move back: a casual game outside tournaments, against
   * a person or the computer but no bot, with a move of theirs to take back (games/takeback.py). */
  canAskTakeback() {
    const { game, myColor } = this.ctx;
    if (game.rated || game.tournament || game.takeback_offer || game.white.bot || game.black.bot) return false;
    if (game.takeback_declined === myColor) return false; // declined: asked again after the next move
    return game.ply >= (game.side_to_move === myColor ? 2 : 1);
  }

  drawControls() {
    const { game, myColor, features, id } = this.ctx;
    if (!game) return;
    const live = this.ctx.isLive();
    const items = [];
    const button = (name, label, onClick, cls = "secondary") => items.push(h("button", { class: cls, id: name, onClick }, label));
    // A button whose request must not go twice: disabled once clicked, until the next state redraws it.
    const once = (name, label, type, cls = "secondary") => {
      button(name, label, (event) => {
        if (this.oneShot) return;
        event.currentTarget.disabled = true;
        this.oneShot = { name, id: this.send(type) };
      }, cls);
      if (this.oneShot?.name === name) items[items.length - 1].disabled = true;
    };
    button("flip", t("game.flip"), () => this.onFlip());
    button("sound", soundOn() ? t("game.soundOn") : t("game.soundOff"), () => {
      setSound(!soundOn());
      this.drawControls();
    });
    items[items.length - 1].setAttribute("aria-pressed", soundOn() ? "true" : "false");
    if (live && myColor) {
      // A tournament's game is never aborted by a player (the server refuses it): resign instead.
      if (game.ply < 2 && !game.tournament) once("abort", t("game.abort"), "abort");
      else button("resign", t("game.resign"), () => confirm(t("game.confirmResign")) && this.send("resign"));
      // A draw is offered once each side has moved (before, the game is aborted instead), and by the same
      // side again only 20 plies after its last offer (the server's `draw_again_at`).
      const again = game.draw_again_at?.[myColor];
      if (!game.draw_offer && game.ply >= 2 && again == null) once("offer-draw", t("game.offerDraw"), "draw-offer");
      if (this.canAskTakeback()) {
        once("takeback", t("game.takeback"), "takeback-offer");
        items[items.length - 1].title = t("game.takebackHint");
      }
      // lichess's "Give 15 seconds": to a person, in a game with a clock, outside tournaments.
      const opponent = game[OTHER[myColor]];
      if (game.clocks && !game.tournament && !opponent?.computer) {
        button("moretime", t("game.moretime"), () => this.send("moretime"));
        items[items.length - 1].title = t("game.moretimeHint");
      }
      const left = this.claimSecondsLeft();
      if (left !== null && left <= 0) {
        // lichess's two buttons: the win, or a draw for a player who would rather not win so.
        button("claim-victory", t("game.claimVictory"), () => this.send("claim-victory"), "");
        button("claim-draw", t("game.claimDraw"), () => this.send("claim-draw"));
      }
      else if (left !== null) items.push(h("span", { class: "muted", id: "claim-wait" }, t("game.opponentGone", { seconds: left })));
      this.claimShown = left === null ? null : left <= 0;
    }
    if (!live && myColor && features.rematch && game.status === "finished") rematchControls(this.ctx, button, items);
    if (!live && myColor && seekLike(game)) button("new-opponent", t("game.newOpponent"), () => seekNewOpponent(game));
    // A spectator follows the players to their rematch (lichess's "View rematch").
    if (!myColor && game.rematch?.game_id) {
      items.push(h("a", { class: "button", id: "view-rematch", href: `/game/${game.rematch.game_id}` }, t("game.viewRematch")));
    }
    if (features.pdn) {
      items.push(h("a", { class: "button secondary", id: "pdn", href: `/api/games/${id}/pdn`, download: `shashki-${id}.pdn` }, t("game.downloadPdn")));
    }
    // The buttons are drawn anew with each state: the keyboard's focus stays on the one it was on.
    const focused = this.el.controls.contains(document.activeElement) ? document.activeElement.id : null;
    if (game.status === "finished") items.push(h("a", { class: "button secondary", id: "analyse", href: analysisUrl(game, myColor || "white") }, t("analysis.analyseGame")));
    fill(this.el.controls, ...items);
    if (focused) this.el.controls.querySelector(`[id="${focused}"]`)?.focus();
  }
}
