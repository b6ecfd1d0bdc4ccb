// A game: played, watched or replayed. Everything shown comes from the server's states over the game's
// WebSocket — the position, the legal moves, both clocks, the result — so the page never computes rules.

import { api, ApiError, endpoint, LiveSocket, session } from "./api.js";
import { Board } from "./board.js";
import { clear, fill, h, toast } from "./dom.js";
import { geometry, squaresOf, variant } from "./geometry.js";
import { t } from "./i18n.js";
import { navigate } from "./main.js";
import { playMoveSound, setSound, soundOn } from "./sound.js";
import { playerLabel, playerLink, resultText, timeControlLabel, variantName } from "./widgets.js";

const OTHER = { white: "black", black: "white" };

export function formatClock(ms) {
  ms = Math.max(0, ms);
  const minutes = Math.floor(ms / 60000);
  const seconds = Math.floor((ms % 60000) / 1000);
  if (ms < 10000) return `${minutes}:${String(seconds).padStart(2, "0")}.${Math.floor((ms % 1000) / 100)}`;
  if (minutes >= 60) return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, "0")}:${String(seconds).padStart(2, "0")}`;
  return `${minutes}:${String(seconds).padStart(2, "0")}`;
}

export async function mount(container, { id }) {
  let game = null; // the latest state
  let receivedAt = 0; // performance.now() when it came
  let viewPly = null; // null: the live position; a number: looking back at the position after that ply
  let positions = null; // {fens} from /api/games/{id}/positions, for going back through the game
  let pending = null; // {id, move} of a move sent and not yet answered
  let lagMs = 0;
  let requestId = 0;
  let opponentGoneSince = null;
  let claimShown = null; // whether the claim button (true) or its countdown (false) is on screen
  let rematchFollowed = null;
  const presence = { white: null, black: null };
  const me = session.user;
  let myColor = null;
  let orientation = null;
  let board = null;
  let features = { rematch: false, chat: false, pdn: false };

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
    moveForm: null,
    moveInput: h("input", {
      id: "move-text",
      placeholder: t("game.typeMove", { example: "c3-d4" }),
      autocomplete: "off",
      autocapitalize: "off",
      spellcheck: "false",
      "aria-label": t("game.typeMove", { example: "c3-d4" }),
    }),
    moveError: h("p", { class: "error", id: "move-error", hidden: true }),
    chat: h("section", { class: "chat", id: "chat", hidden: true }),
    spectators: h("span", { class: "spectators", id: "spectators", hidden: true }),
  };
  el.moveForm = h(
    "form",
    {
      class: "move-form",
      id: "move-form",
      onSubmit: (e) => {
        e.preventDefault();
        const text = el.moveInput.value.trim();
        if (text) sendMove(text);
      },
    },
    el.moveInput,
    h("button", { type: "submit" }, t("game.play"))
  );
  const page = h(
    "div",
    { class: "game-page", dataset: { gameId: id } },
    h("div", { class: "board-area" }, el.top, el.boardSlot, el.bottom, el.hint),
    h(
      "aside",
      { class: "side" },
      el.banner,
      el.status,
      el.offer,
      h("div", { class: "move-list" }, el.moves, el.nav),
      el.moveForm,
      el.moveError,
      el.controls,
      el.info,
      el.chat
    )
  );
  container.append(page);

  // -- the live channel ------------------------------------------------------------------------------
  const socket = new LiveSocket(`/ws/games/${id}`, onMessage, (connected) => {
    page.classList.toggle("offline", !connected);
    if (connected && pending) {
      // The answer to a move may have been lost with the connection: the next state tells.
      pending = null;
    }
  });
  let pingSent = 0;
  const pinger = setInterval(() => {
    pingSent = performance.now();
    socket.send({ type: "ping", id: "ping" });
  }, 10000);

  function onMessage(message) {
    switch (message.type) {
      case "state":
        applyState(message.game);
        break;
      case "ack":
        if (pending && message.id === pending.id) pending = null;
        break;
      case "error":
        onError(message);
        break;
      case "presence":
        onPresence(message);
        break;
      case "pong":
        if (pingSent) lagMs = Math.round((performance.now() - pingSent) / 2);
        break;
      case "chat":
        addChat(message);
        break;
      default:
        if (typeof message.spectators === "number") showSpectators(message.spectators);
    }
  }

  function onError(message) {
    const error = message.error || {};
    if (!game && (error.code === "no_such_game" || error.code === "not_found")) {
      fill(container, h("section", { class: "card" }, h("h1", {}, t("game.notFound")), h("a", { href: "/" }, t("nav.lobby"))));
      return;
    }
    if (pending && message.id === pending.id) {
      pending = null;
      showMoveError(error.message || error.code);
      if (game) draw(); // put the position back as the server has it
      return;
    }
    toast(error.message || error.code || t("game.error"), "error");
  }

  function showMoveError(text) {
    el.moveError.textContent = text;
    el.moveError.hidden = false;
  }

  function onPresence(message) {
    presence.white = message.white;
    presence.black = message.black;
    if (typeof message.spectators === "number") showSpectators(message.spectators);
    if (myColor) {
      const opponent = OTHER[myColor];
      if (message[opponent] === false && opponentGoneSince === null) opponentGoneSince = performance.now();
      if (message[opponent]) opponentGoneSince = null;
    }
    drawPlayers();
    drawControls();
  }

  function showSpectators(count) {
    // Shown only while somebody watches: "10+0 · Rated · 2 watching".
    el.spectators.hidden = count < 1;
    el.spectators.textContent = count < 1 ? "" : ` · ${t("game.spectators", { count })}`;
  }

  // -- state -----------------------------------------------------------------------------------------
  function applyState(next) {
    const first = !game;
    const moved = game && next.ply > game.ply;
    const finishedNow = game && game.status === "started" && next.status !== "started";
    game = next;
    receivedAt = performance.now();
    if (pending && next.ply > pending.ply) pending = null;
    if (positions) {
      if (positions.fens.length === next.ply) positions.fens.push(next.fen);
      else if (positions.fens.length !== next.ply + 1) positions = null;
    }
    if (myColor && next.side_to_move === OTHER[myColor] && next.mover_disconnected_ms) {
      opponentGoneSince = receivedAt - next.mover_disconnected_ms;
    }
    if (first) setup();
    if (moved) {
      el.moveError.hidden = true;
      if (viewPly !== null && viewPly === next.ply - 1) viewPly = null; // following the game
      const last = next.moves[next.moves.length - 1] || "";
      playMoveSound(/[x:]/.test(last) ? "capture" : "move");
    }
    if (finishedNow) playMoveSound("capture");
    const rematchId = next.rematch && next.rematch.game_id;
    if (myColor && rematchId && !first && rematchFollowed !== rematchId) {
      rematchFollowed = rematchId;
      navigate(`/game/${rematchId}`);
      return;
    }
    draw();
  }

  function setup() {
    if (me && game.white.id === me.id) myColor = "white";
    else if (me && game.black.id === me.id) myColor = "black";
    orientation = myColor || "white";
    board = new Board({
      variant: game.variant,
      orientation,
      interactive: true,
      onMove: (move) => sendMove(move),
      onHint: (kind) => {
        el.hint.textContent = kind ? t(`game.hint.${kind}`) : "";
      },
    });
    el.boardSlot.append(board.el);
    page.dataset.variant = game.variant;
    // The example in the move box in the variant's own notation.
    const v = variant(game.variant);
    const example = v.algebraic ? "c3-d4" : v.board_size === 10 ? "32-28" : "22-18";
    el.moveInput.placeholder = t("game.typeMove", { example });
    el.moveInput.setAttribute("aria-label", el.moveInput.placeholder);
    if (myColor) page.dataset.color = myColor;
    document.title = `Shashki — ${playerLabel(game.white)} – ${playerLabel(game.black)}`;
    const lines = [
      h("p", {}, h("a", { href: `/rules/${game.variant}` }, variantName(game.variant)), game.double_diagonal ? ` · ${t("terms.doubleDiagonal")}` : ""),
      h("p", {}, timeControlLabel(game.clocks), " · ", t(game.rated ? "terms.rated" : "terms.casual"), el.spectators),
      game.white.computer || game.black.computer
        ? h("p", { class: "muted" }, t("game.computerNote", { engine: (game.white.engine || game.black.engine || "").toString() }))
        : null,
    ];
    el.info.append(...lines.filter(Boolean));
    drawNav();
    detectFeatures();
  }

  async function detectFeatures() {
    // Rematch, chat and PDN export belong to another part of the server: offered when it answers.
    features = {
      pdn: await endpoint("GET", "/api/games/{game_id}/pdn"),
      chat: await endpoint("GET", "/api/games/{game_id}/chat"),
      rematch: await endpoint("POST", "/api/games/{game_id}/rematch"),
    };
    if (features.chat) setupChat();
    drawControls();
  }

  // -- drawing ---------------------------------------------------------------------------------------
  function isLive() {
    return game && game.status === "started";
  }

  function draw() {
    if (!game) return;
    drawBoard();
    drawPlayers();
    drawStatus();
    drawMoves();
    drawControls();
  }

  async function drawBoard() {
    const geom = geometry(game.variant);
    if (viewPly === null || viewPly >= game.ply) {
      viewPly = null;
      const movable = isLive() && myColor === game.side_to_move && !pending;
      const last = game.moves.length ? squaresOf(game.moves[game.moves.length - 1], geom).map((sq) => sq.label) : [];
      board.set({ fen: game.fen, lastMove: last, legal: movable ? game.legal_moves : [], movable });
      page.classList.remove("history");
      return;
    }
    const ply = viewPly;
    try {
      if (!positions) positions = await api("GET", `/api/games/${id}/positions`);
    } catch (e) {
      toast(e.message, "error");
      viewPly = null;
      return drawBoard();
    }
    if (viewPly !== ply) return;
    const last = ply > 0 ? squaresOf(game.moves[ply - 1], geom).map((sq) => sq.label) : [];
    board.set({ fen: positions.fens[ply], lastMove: last, legal: [], movable: false });
    page.classList.add("history");
  }

  function clockMs(color) {
    const clocks = game.clocks;
    if (!clocks) return null;
    let ms = clocks[`${color}_ms`];
    if (clocks.running === color && isLive()) ms -= performance.now() - receivedAt;
    return ms;
  }

  function drawPlayers() {
    if (!game) return;
    const bottomColor = board ? board.orientation : "white";
    for (const [bar, color] of [
      [el.bottom, bottomColor],
      [el.top, OTHER[bottomColor]],
    ]) {
      const player = game[color];
      const online = presence[color];
      const ms = clockMs(color);
      const active = isLive() && game.side_to_move === color;
      bar.dataset.color = color;
      fill(bar, 
        h("span", { class: `swatch ${color}`, title: t(`color.${color}`) }),
        h(
          "span",
          { class: "name" },
          player.computer ? null : h("span", { class: `presence ${online === false ? "off" : online ? "on" : ""}` }),
          playerLink(player)
        ),
        ms === null
          ? null
          : h(
              "span",
              {
                class: `clock ${active && game.clocks.running === color ? "running" : ""} ${ms < 20000 ? "low" : ""}`,
                dataset: { clock: color },
              },
              formatClock(ms)
            )
      );
    }
  }

  // Victory may be claimed once the opponent has been gone long enough on their own turn (the server
  // decides; this only shows when to ask). null: nothing to claim.
  function claimSecondsLeft() {
    if (!myColor || !isLive()) return null;
    const opponent = OTHER[myColor];
    if (game.side_to_move !== opponent || game[opponent].computer || opponentGoneSince === null) return null;
    return Math.ceil((game.claim_victory_after_ms - (performance.now() - opponentGoneSince)) / 1000);
  }

  function tickClaim() {
    // Controls are redrawn only when the claim button comes or goes, so no click is lost to a redraw.
    const left = claimSecondsLeft();
    const ready = left === null ? null : left <= 0;
    if (ready !== claimShown) drawControls();
    else if (left !== null && !ready) {
      const wait = page.querySelector("#claim-wait");
      if (wait) wait.textContent = t("game.opponentGone", { seconds: left });
    }
  }

  function tickClocks() {
    if (!game || !isLive()) return;
    tickClaim();
    if (!game.clocks) return;
    for (const color of ["white", "black"]) {
      const node = page.querySelector(`[data-clock="${color}"]`);
      if (!node) continue;
      const ms = clockMs(color);
      node.textContent = formatClock(ms);
      node.classList.toggle("low", ms < 20000);
    }
  }
  const ticker = setInterval(tickClocks, 100);

  function drawStatus() {
    const live = isLive();
    el.banner.hidden = live;
    if (!live) {
      fill(el.banner, h("strong", {}, resultText(game)));
      if (myColor && game.winner) {
        el.banner.append(h("span", { class: "you" }, t(game.winner === myColor ? "result.youWin" : "result.youLose")));
      }
      if (game.rating_diffs) {
        const signed = (n) => (n > 0 ? `+${n}` : String(n));
        el.banner.append(
          h(
            "span",
            { class: "rating-diffs", id: "rating-diffs" },
            t("game.ratingChanges", { white: signed(game.rating_diffs.white), black: signed(game.rating_diffs.black) })
          )
        );
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
    el.moveForm.hidden = !(live && myColor);
    if (!(live && myColor)) el.moveError.hidden = true;
    const offer = game.draw_offer;
    el.offer.hidden = !(live && myColor && offer);
    if (!el.offer.hidden) {
      clear(el.offer);
      if (offer === myColor) el.offer.append(t("game.drawOffered"));
      else {
        el.offer.append(
          h("span", {}, t("game.drawOfferedToYou")),
          h("button", { id: "accept-draw", onClick: () => action("draw-accept") }, t("game.acceptDraw")),
          h("button", { class: "secondary", id: "decline-draw", onClick: () => action("draw-decline") }, t("game.declineDraw"))
        );
      }
    }
  }

  function drawMoves() {
    clear(el.moves);
    const current = viewPly === null ? game.ply : viewPly;
    game.moves.forEach((move, i) => {
      if (i % 2 === 0) el.moves.append(h("li", { class: "number" }, `${i / 2 + 1}.`));
      el.moves.append(
        h(
          "li",
          {
            class: `ply ${i + 1 === current ? "current" : ""}`,
            dataset: { ply: i + 1 },
            onClick: () => view(i + 1),
          },
          move
        )
      );
    });
    const active = el.moves.querySelector(".current");
    if (active && viewPly === null) el.moves.scrollTop = el.moves.scrollHeight;
    for (const button of el.nav.children) {
      const target = button.dataset.nav;
      button.disabled =
        !game.moves.length || ((target === "first" || target === "prev") && current === 0) || ((target === "next" || target === "last") && current === game.ply);
    }
  }

  function drawNav() {
    const buttons = [
      ["first", "«", () => view(0)],
      ["prev", "‹", () => view((viewPly ?? game.ply) - 1)],
      ["next", "›", () => view((viewPly ?? game.ply) + 1)],
      ["last", "»", () => view(game.ply)],
    ];
    for (const [name, label, onClick] of buttons) {
      el.nav.append(h("button", { class: "secondary", dataset: { nav: name }, title: t(`game.nav.${name}`), "aria-label": t(`game.nav.${name}`), onClick }, label));
    }
  }

  function view(ply) {
    if (!game) return;
    ply = Math.max(0, Math.min(game.ply, ply));
    viewPly = ply === game.ply ? null : ply;
    board.cancel();
    draw();
  }

  function drawControls() {
    if (!game) return;
    const live = isLive();
    const buttons = [];
    const button = (name, label, onClick, cls = "secondary") => buttons.push(h("button", { class: cls, id: name, onClick }, label));
    button("flip", t("game.flip"), () => {
      board.flip();
      drawPlayers();
    });
    button("sound", soundOn() ? t("game.soundOn") : t("game.soundOff"), () => {
      setSound(!soundOn());
      drawControls();
    });
    if (live && myColor) {
      if (game.ply < 2) button("abort", t("game.abort"), () => action("abort"));
      else button("resign", t("game.resign"), () => confirm(t("game.confirmResign")) && action("resign"));
      if (!game.draw_offer) button("offer-draw", t("game.offerDraw"), () => action("draw-offer"));
      const opponent = OTHER[myColor];
      const left = claimSecondsLeft();
      if (left !== null && left <= 0) button("claim-victory", t("game.claimVictory"), () => action("claim-victory"), "");
      else if (left !== null) buttons.push(h("span", { class: "muted", id: "claim-wait" }, t("game.opponentGone", { seconds: left })));
      claimShown = left === null ? null : left <= 0;
    }
    if (!live && myColor && features.rematch && game.status === "finished") drawRematch(button, buttons);
    if (features.pdn) {
      buttons.push(h("a", { class: "button secondary", id: "pdn", href: `/api/games/${id}/pdn`, download: `shashki-${id}.pdn` }, t("game.downloadPdn")));
    }
    fill(el.controls, ...buttons);
  }

  // -- acting ----------------------------------------------------------------------------------------
  function sendMove(text) {
    if (!game || !myColor) return;
    if (pending) return;
    el.moveError.hidden = true;
    pending = { id: ++requestId, move: text, ply: game.ply };
    socket.send({ type: "move", move: text, ply: game.ply, id: pending.id, lag_ms: lagMs });
    el.moveInput.value = "";
  }

  function action(type) {
    socket.send({ type, id: ++requestId });
  }

  // A rematch: the same terms, colours swapped. The offer stands on the finished game's state
  // (`rematch: {offer, game_id}`); once the new game exists, both players are taken to it.
  function drawRematch(button, buttons) {
    const rematch = game.rematch || {};
    if (rematch.game_id) {
      buttons.push(h("a", { class: "button", id: "rematch-game", href: `/game/${rematch.game_id}` }, t("game.toRematch")));
    } else if (rematch.offer === myColor) {
      buttons.push(h("span", { class: "muted", id: "rematch-offered" }, t("game.rematchOffered")));
      button("rematch-cancel", t("lobby.cancel"), () => rematchCall("/rematch/decline"));
    } else if (rematch.offer) {
      buttons.push(h("span", { id: "rematch-offered-to-you" }, t("game.rematchOfferedToYou")));
      button("rematch-accept", t("game.acceptRematch"), () => rematchCall("/rematch/accept"), "");
      button("rematch-decline", t("game.declineDraw"), () => rematchCall("/rematch/decline"));
    } else {
      button("rematch", t("game.rematch"), () => rematchCall("/rematch"), "");
    }
  }

  async function rematchCall(path) {
    try {
      const data = await api("POST", `/api/games/${id}${path}`);
      if (data.game && data.game.id !== id) navigate(`/game/${data.game.id}`);
    } catch (e) {
      toast(e instanceof ApiError ? e.message : String(e), "error");
    }
  }

  // -- chat ------------------------------------------------------------------------------------------
  // Two rooms, as on lichess: the players' own room, and the spectators' room everyone reads.
  const chatLines = h("ol", { class: "lines", id: "chat-lines" });
  const chatSeen = new Set();
  function addChat(line) {
    if (line.id !== undefined) {
      if (chatSeen.has(line.id)) return;
      chatSeen.add(line.id);
    }
    const room = line.room === "spectator" ? h("small", { class: "room" }, t("game.chatSpectators"), " ") : null;
    chatLines.append(h("li", { class: `room-${line.room}` }, room, h("strong", {}, `${line.username}: `), line.text));
    chatLines.scrollTop = chatLines.scrollHeight;
  }
  async function setupChat() {
    const input = h("input", { id: "chat-text", maxlength: "140", placeholder: t("game.chatPlaceholder"), "aria-label": t("game.chat") });
    const form = h(
      "form",
      {
        id: "chat-form",
        onSubmit: async (e) => {
          e.preventDefault();
          const text = input.value.trim();
          if (!text) return;
          try {
            const data = await api("POST", `/api/games/${id}/chat`, { text });
            input.value = "";
            addChat(data.line);
          } catch (err) {
            toast(err.message, "error");
          }
        },
      },
      input
    );
    fill(el.chat, h("h3", {}, t("game.chat")), chatLines, me ? form : h("p", { class: "muted" }, t("game.chatLogin")));
    el.chat.hidden = false;
    try {
      const data = await api("GET", `/api/games/${id}/chat`);
      for (const line of data.lines || []) addChat(line);
    } catch {
      /* an empty chat */
    }
  }

  // -- keys --------------------------------------------------------------------------------------------
  function onKey(e) {
    if (!game || e.target.closest("input, textarea, select")) return;
    if (e.key === "ArrowLeft") view((viewPly ?? game.ply) - 1);
    else if (e.key === "ArrowRight") view((viewPly ?? game.ply) + 1);
    else if (e.key === "Home") view(0);
    else if (e.key === "End") view(game.ply);
    else if (e.key === "Escape") board.cancel();
    else if (/^[a-j0-9]$/i.test(e.key) && myColor && isLive()) {
      // Typing a move anywhere on the page goes to the move box.
      el.moveInput.focus();
      return;
    } else return;
    e.preventDefault();
  }
  document.addEventListener("keydown", onKey);

  return {
    unmount() {
      socket.close();
      clearInterval(ticker);
      clearInterval(pinger);
      document.removeEventListener("keydown", onKey);
    },
  };
}
