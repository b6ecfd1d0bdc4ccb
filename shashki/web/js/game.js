// A game: played, watched or replayed. Everything shown comes from the server's states over the game's
// WebSocket — the position, the legal moves, both clocks, the result — so the page never computes rules.
//
// This module lays the page out, keeps the latest state and hands each message to its parts: the board
// and move list (game-board.js), the player bars and clocks (game-clocks.js), the player's actions
// (game-actions.js) and the chat (game-chat.js). They share `ctx`, the state of the page. Premoves
// (game-premove.js), the move box's completion (game-move-box.js) and what a screen reader is told
// (game-announce.js) hang on the same states.

import { api, endpoint, LiveSocket, session } from "./api.js";
import { fill, h, toast } from "./dom.js";
import { Actions } from "./game-actions.js";
import { Announcer } from "./game-announce.js";
import { BoardController } from "./game-board.js";
import { Chat } from "./game-chat.js";
import { Clocks } from "./game-clocks.js";
import { mountReview } from "./game-review.js";
import { MoveBox } from "./game-move-box.js";
import { Premoves } from "./game-premove.js";
import { confirmOption } from "./game-confirm.js";
import { CorrTime } from "./corr.js";
import { TournamentBox } from "./game-tournament.js";
import { variant } from "./geometry.js";
import { errorText, t } from "./i18n.js";
import { navigate } from "./router.js";
import { playSound } from "./sound.js";
import { playerLabel, resultText, timeControlLabel, variantName } from "./widgets.js";

export async function mount(container, { id }) {
  const ctx = {
    id,
    me: session.user,
    game: null, // the latest state
    receivedAt: 0, // performance.now() when it came
    myColor: null,
    presence: { white: null, black: null },
    features: { rematch: false, chat: false, pdn: false },
    ratings: null, // {white, black}: {rating, provisional} (loadRatings)
    isLive() {
      return !!this.game && this.game.status === "started";
    },
  };
  let rematchFollowed = null;

  const el = {
    top: h("div", { class: "player-bar top" }),
    bottom: h("div", { class: "player-bar bottom" }),
    hint: h("p", { class: "hint", id: "hint", "aria-live": "polite" }),
    boardSlot: h("div", { class: "board-slot" }),
    banner: h("div", { class: "result-banner", id: "result", hidden: true }),
    status: h("p", { class: "status", id: "status" }),
    info: h("div", { class: "game-info", id: "game-info" }),
    moves: h("ol", { class: "moves", id: "moves" }),
    nav: h("div", { class: "nav-buttons" }),
    controls: h("div", { class: "controls", id: "controls" }),
    offer: h("div", { class: "offer", id: "draw-offer", hidden: true }),
    chat: h("section", { class: "chat", id: "chat", hidden: true }),
    review: h("section", { class: "review", id: "review" }),
    spectators: h("span", { class: "spectators", id: "spectators", hidden: true }),
    simul: h("p", { class: "game-simul", id: "game-simul", hidden: true }),
  };

  // -- the live channel and the page's parts ---------------------------------------------------------
  const page = h("div", { class: "game-page", dataset: { gameId: id } });
  const socket = new LiveSocket(
    `/ws/games/${id}`,
    onMessage,
    (connected) => {
      page.classList.toggle("offline", !connected);
      actions.connection(connected);
    },
    { heartbeatMs: 3000 }
  );
  const clocks = new Clocks(ctx, { top: el.top, bottom: el.bottom });
  const corrTime = new CorrTime(); // a correspondence game's time to move (corr.js)
  const chat = new Chat(ctx, el.chat);
  const tournament = new TournamentBox(ctx);
  const actions = new Actions(ctx, socket, { controls: el.controls, offer: el.offer }, {
    onFlip: flip,
    onRefused: () => {
      premoves.cancel(); // entered after a move the server has now refused: it no longer follows
      if (ctx.game) draw(); // put the position back as the server has it
    },
  });
  const board = new BoardController(ctx, { slot: el.boardSlot, moves: el.moves, nav: el.nav, page }, {
    onMove: (move) => {
      actions.sendMove(move);
      if (actions.pending) board.allowPremove(ctx.myColor); // the next move may be entered at once
    },
    canMove: () => ctx.isLive() && ctx.myColor === ctx.game.side_to_move && !actions.pending,
    onHint: (kind) => (el.hint.textContent = kind ? t(`game.hint.${kind}`) : ""),
    onView: () => draw(),
    canPremove: () => premoves.canPremove(),
    onPremove: (path) => premoves.premoveChanged(path),
  });
  const premoves = new Premoves(ctx, board, {
    // A premove goes out through the one function that sends moves, and shows as made at once.
    play: (move) => {
      actions.sendMove(move.move);
      if (actions.pending) board.showMove(move);
    },
    isPending: () => !!actions.pending,
  });
  new MoveBox(ctx, actions, premoves);
  const announcer = new Announcer(ctx);

  page.append(
    h("div", { class: "board-area" }, el.top, el.boardSlot, el.bottom, el.hint, premoves.hint, announcer.el),
    h(
      "aside",
      { class: "side" },
      el.banner,
      el.status,
      corrTime.el,
      el.offer,
      h("div", { class: "move-list" }, el.moves, el.nav),
      actions.form,
      actions.error,
      premoves.panel,
      el.controls,
      tournament.el,
      el.simul,
      el.info,
      el.review,
      el.chat
    )
  );
  container.append(page);

  function onMessage(message) {
    switch (message.type) {
      case "state":
        applyState(message.game);
        break;
      case "patch":
        // What changed since the state held (seq `from`): the fields of `set`, the moves of `append`.
        // A patch that does not follow it (a message lost) asks for the whole state again.
        if (ctx.game && ctx.game.seq === message.from) {
          applyState({ ...ctx.game, ...message.set, moves: ctx.game.moves.concat(message.append) });
        } else socket.send({ type: "resync" });
        break;
      case "ack":
        actions.acknowledged(message);
        break;
      case "error":
        onError(message);
        break;
      case "presence":
        onPresence(message);
        break;
      case "pong":
        if (socket.pingSentAt) {
          const roundTrip = performance.now() - socket.pingSentAt;
          actions.lagMs = Math.round(roundTrip / 2);
          // A pong this late came through a network that held the messages: the state before it may
          // have come as late, its clocks as they stood when it was sent. Asked again, it is read now.
          if (roundTrip > 1500) socket.send({ type: "resync" });
        }
        break;
      case "chat":
        chat.add(message);
        break;
      default:
        if (typeof message.spectators === "number") showSpectators(message.spectators);
    }
  }

  function onError(message) {
    const error = message.error || {};
    if (!ctx.game && (error.code === "no_such_game" || error.code === "not_found")) {
      fill(container, h("section", { class: "card" }, h("h1", {}, t("game.notFound")), h("a", { href: "/" }, t("nav.lobby"))));
      return;
    }
    if (actions.refused(message)) return;
    toast(errorText(error) || t("game.error"), "error");
  }

  function onPresence(message) {
    ctx.presence.white = message.white;
    ctx.presence.black = message.black;
    if (typeof message.spectators === "number") showSpectators(message.spectators);
    actions.presenceChanged(message);
    if (!ctx.game) return;
    clocks.draw(board.orientation);
    actions.drawControls();
  }

  function showSpectators(count) {
    // Shown only while somebody watches: "10+0 · Rated · 2 watching".
    el.spectators.hidden = count < 1;
    el.spectators.textContent = count < 1 ? "" : ` · ${t("game.spectators", { count })}`;
  }

  // -- state -----------------------------------------------------------------------------------------
  function applyState(next) {
    const previous = ctx.game;
    const moved = previous && next.ply > previous.ply;
    const finishedNow = previous && previous.status === "started" && next.status !== "started";
    ctx.game = next;
    ctx.receivedAt = performance.now();
    // The player's seat, known before anything reads the first state: the claim countdown counts from its
    // `mover_disconnected_ms` (found by an audit: read before the seat was known, a reload counted the
    // whole wait again).
    if (!previous) takeSeat();
    actions.stateChanged(next, moved, ctx.receivedAt);
    board.stateChanged(next, moved);
    if (!previous) setup();
    if (moved) {
      const last = next.moves[next.moves.length - 1] || "";
      playSound(/[x:]/.test(last) ? "capture" : "move");
    }
    // A draw offered and gone with no move played and the game going on: the opponent declined it
    // (found by an audit: the offerer was never told, the button simply gone).
    const declined =
      previous && ctx.myColor && previous.draw_offer === ctx.myColor && !next.draw_offer &&
      next.ply === previous.ply && next.status === "started";
    if (declined) toast(t("game.drawDeclined"));
    if (finishedNow) {
      playSound("end");
      if (ctx.myColor && ctx.features.chat) chat.open(); // the spectators' room opens to the players now
    }
    else if (!previous && ctx.myColor && next.status === "started" && next.ply === 0) playSound("start");
    announcer.stateChanged(previous, next);
    const rematchId = next.rematch && next.rematch.game_id;
    if (ctx.myColor && rematchId && previous && rematchFollowed !== rematchId) {
      rematchFollowed = rematchId;
      navigate(`/game/${rematchId}`);
      return;
    }
    if (!ctx.isLive() && !review) review = mountReview(el.review, id); // the computer's analysis
    draw();
    premoves.stateChanged(previous, next);
  }

  let review = null;

  function takeSeat() {
    const { game, me } = ctx;
    if (me && game.white.id === me.id) ctx.myColor = "white";
    else if (me && game.black.id === me.id) ctx.myColor = "black";
  }

  function setup() {
    const { game } = ctx;
    board.setup();
    page.dataset.variant = game.variant;
    actions.setExample(variant(game.variant));
    if (ctx.myColor) page.dataset.color = ctx.myColor;
    document.title = `Shashki — ${playerLabel(game.white)} – ${playerLabel(game.black)}`;
    const lines = [
      h("p", {}, h("a", { href: `/rules/${game.variant}` }, variantName(game.variant)), game.double_diagonal ? ` · ${t("terms.doubleDiagonal")}` : ""),
      h("p", {}, timeControlLabel(game.clocks, game.correspondence && game.correspondence.days_per_move), " · ", t(game.rated ? "terms.rated" : "terms.casual"), el.spectators),
      game.white.computer || game.black.computer
        ? h("p", { class: "muted" }, t("game.computerNote", { engine: (game.white.engine || game.black.engine || "").toString() }))
        : null,
      ctx.myColor ? confirmOption(game) : null,
    ];
    el.info.append(...lines.filter(Boolean));
    if (game.simul) showSimul(game.simul);
    detectFeatures();
    loadRatings();
  }

  /** A simul's game: the way back to the simul (its name once fetched), as lidraughts links it. */
  function showSimul(simulId) {
    const back = h("a", { href: `/simul/${simulId}`, id: "back-to-simul" }, t("simul.back"));
    fill(el.simul, back);
    el.simul.hidden = false;
    api("GET", `/api/simuls/${simulId}`)
      .then((simul) => back.append(": ", h("span", { translate: "no" }, simul.name)))
      .catch(() => {});
  }

  /** The players' ratings beside their names, as lichess shows them (a finished rated game's as they were). */
  async function loadRatings() {
    try {
      ctx.ratings = (await api("GET", `/api/games/${id}/ratings`)).ratings;
      clocks.draw(board.orientation);
    } catch {
      /* the names alone */
    }
  }

  async function detectFeatures() {
    // Rematch, chat and PDN export belong to another part of the server: offered when it answers.
    ctx.features = {
      pdn: await endpoint("GET", "/api/games/{game_id}/pdn"),
      chat: await endpoint("GET", "/api/games/{game_id}/chat"),
      rematch: await endpoint("POST", "/api/games/{game_id}/rematch"),
    };
    if (ctx.features.chat) chat.open();
    actions.drawControls();
  }

  // -- drawing ---------------------------------------------------------------------------------------
  function draw() {
    if (!ctx.game) return;
    board.draw();
    clocks.draw(board.orientation);
    corrTime.update(ctx.game);
    drawStatus();
    actions.drawOffer();
    actions.drawControls();
    premoves.draw();
    tournament.draw();
  }

  /** The result once the game is over (with the rating changes), else whose turn it is. */
  function drawStatus() {
    const { game, myColor } = ctx;
    const live = ctx.isLive();
    el.banner.hidden = live;
    if (!live) {
      fill(el.banner, h("strong", {}, resultText(game)));
      if (myColor && game.winner) {
        el.banner.append(h("span", { class: "you" }, t(game.winner === myColor ? "result.youWin" : "result.youLose")));
      }
      if (game.rating_diffs) {
        const signed = (n) => (n > 0 ? `+${n}` : String(n));
        const diffs = t("game.ratingChanges", { white: signed(game.rating_diffs.white), black: signed(game.rating_diffs.black) });
        el.banner.append(h("span", { class: "rating-diffs", id: "rating-diffs" }, diffs));
      }
    }
    let status = "";
    if (live) {
      const capture = game.legal_moves.length && game.legal_moves[0].captures.length;
      if (myColor === game.side_to_move) status = t(capture ? "game.yourTurnCapture" : "game.yourTurn");
      else if (myColor) status = t("game.opponentsTurn");
      else status = t(`game.toMove.${game.side_to_move}`);
    }
    el.status.textContent = status;
    el.status.hidden = !status;
  }

  const ticker = setInterval(() => {
    if (!ctx.isLive()) return;
    actions.tickClaim();
    clocks.tick();
  }, 100);

  function flip() {
    board.flip();
    clocks.draw(board.orientation);
  }

  // -- keys, as on lichess: ← → a move back or on, ↑ or Home the start, ↓ or End the current position
  // (board.handleKey), f turns the board round; typing a move anywhere on the page goes to the move box.
  // Never while typing in a field (the move box, the chat) nor with Ctrl, Alt or Meta (the browser's own
  // keys); on the board the arrows move its focus instead (board-keys.js).
  function onKey(e) {
    if (!ctx.game || e.ctrlKey || e.altKey || e.metaKey) return;
    if (e.target.closest("input, textarea, select, [contenteditable]")) return;
    if (board.handleKey(e.key)) e.preventDefault();
    else if (beginsTypedMove(e.key)) actions.focusMoveBox();
    else if ((e.key === "f" || e.key === "F") && !e.repeat) flip();
  }

  /** Whether `key` may begin a move the player types now: a square's number, or its file's letter where
   * squares are named by letters (there "f" is the f-file, as in f6-e5; elsewhere it flips the board). */
  function beginsTypedMove(key) {
    if (!ctx.myColor || !ctx.isLive()) return false;
    return /^[0-9]$/.test(key) || (variant(ctx.game.variant).algebraic && /^[a-j]$/i.test(key));
  }
  document.addEventListener("keydown", onKey);

  return {
    unmount() {
      socket.close();
      if (review) review.stop();
      tournament.stop();
      clearInterval(ticker);
      corrTime.close();
      document.removeEventListener("keydown", onKey);
    },
  };
}
