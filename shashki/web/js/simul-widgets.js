// Pieces of the simul pages (simuls.js, simul.js): a simul's terms in one line, a line of the list, and
// the grid of its games — one small board per player, as lidraughts and lichess show a simul.
//
// Every figure is the server's (`server/simuls/views.py`): each player's `board` gives the position, the
// last move, the side to move and both clocks as of when it was sent; the page counts the running clock
// down between two of them and never decides anything. For the host, the boards where it is their move
// come first and are marked (lichess's simul page does the same).

import { Board } from "./board.js";
import { fill, h } from "./dom.js";
import { formatClock } from "./game-clocks.js";
import { geometry, squaresOf } from "./geometry.js";
import { t } from "./i18n.js";
import { clockLabel } from "./tournament-widgets.js";
import { variantName } from "./widgets.js";

const OTHER = { white: "black", black: "white" };

/** "Russian giveaway · 10+5 · Host +2 min · The host plays White": a simul's terms in one line. */
export function simulTerms(simul) {
  const parts = [variantName(simul.variant), clockLabel(simul.clock)];
  if (simul.host_extra_minutes) parts.push(t("simul.extraIs", { minutes: +simul.host_extra_minutes.toFixed(1) }));
  parts.push(t(`simul.hostColor.${simul.host_color}`));
  return parts.join(" · ");
}

/** A line of the list: the simul's name (a link to its page), its terms, its host and players. */
export function simulItem(simul) {
  return h(
    "li",
    { class: `simul-item ${simul.status}`, dataset: { simulId: simul.id, status: simul.status } },
    h(
      "a",
      { href: `/simul/${simul.id}` },
      h("strong", { translate: "no" }, simul.name), // a name its host chose
      h("small", {}, ` ${simulTerms(simul)}`)
    ),
    h(
      "span",
      { class: "meta" },
      h("span", { class: "host" }, t("simul.hostedBy", { name: simul.host.username || "?" })),
      " · ",
      h("span", { class: "players" }, t("simul.playersCount", { count: simul.players_count ?? 0 }))
    )
  );
}

/** How a game ended for its player: won, lost, drawn, aborted (the server's outcome, or its board's). */
export function outcomeOf(player) {
  if (player.outcome) return player.outcome;
  const b = player.board;
  if (!b || b.status === "started") return null;
  if (b.status === "aborted") return "aborted";
  if (!b.winner) return "drawn";
  return b.winner === player.color ? "won" : "lost";
}

/** The host's colour in a player's game. */
export function hostColor(player) {
  return OTHER[player.color] || "white";
}

/** Whether the host is to move in this player's game (a game in play). */
export function hostToMove(player) {
  const b = player.board;
  return !!b && b.status === "started" && !outcomeOf(player) && b.side_to_move === hostColor(player);
}

/**
 * The grid of a simul's games: `update(simul, me)` draws every game (boards kept between updates),
 * `board(B)` a game's new position (the socket's `board` event). `stop()` ends the clocks' ticking.
 */
export class SimulBoards {
  constructor() {
    this.simul = null;
    this.me = null;
    this.entries = new Map(); // game id -> {board, el, names, clocks, result, player, receivedAt}
    this.el = h("div", { class: "mini-boards simul-boards", id: "simul-boards" });
    this.timer = setInterval(() => this.tick(), 1000);
  }

  stop() {
    clearInterval(this.timer);
  }

  isHost() {
    return !!this.me && !!this.simul && this.me === this.simul.host.username;
  }

  update(simul, me) {
    this.simul = simul;
    this.me = me;
    const playing = simul.players.filter((p) => p.game && p.board);
    const keep = new Set(playing.map((p) => p.game));
    for (const id of [...this.entries.keys()]) if (!keep.has(id)) this.entries.delete(id);
    for (const p of playing) this.draw(p);
    this.order();
  }

  /** A game's new position, from the simul's socket. */
  board(next) {
    if (!this.simul || !next) return;
    const player = this.simul.players.find((p) => p.game === next.game);
    if (!player) return;
    player.board = next;
    this.draw(player);
    this.order();
  }

  /** The host's boards to move on first (lichess marks them so), then the others as the server lists them. */
  order() {
    const players = this.simul.players.filter((p) => this.entries.has(p.game));
    const host = this.isHost();
    const first = host ? players.filter(hostToMove) : [];
    const rest = players.filter((p) => !first.includes(p));
    const wanted = [...first, ...rest].map((p) => this.entries.get(p.game).el);
    if (wanted.some((el, i) => this.el.children[i] !== el) || this.el.children.length !== wanted.length) {
      fill(this.el, wanted);
    }
  }

  draw(player) {
    const b = player.board;
    const variant = this.simul.variant;
    let entry = this.entries.get(player.game);
    const hostSide = hostColor(player);
    const orientation = this.me === player.username ? player.color : hostSide;
    if (!entry) {
      const board = Board.mini(variant, b.fen, orientation);
      const clocks = {};
      const names = {};
      const side = (color) => {
        clocks[color] = h("span", { class: "simul-clock", dataset: { color } });
        names[color] = h("span", { class: "name", translate: "no" });
        return h("span", { class: "simul-side", dataset: { color } }, names[color], clocks[color]);
      };
      entry = {
        board,
        clocks,
        names,
        result: h("span", { class: "outcome" }),
        el: h("a", { class: "mini-game simul-game", href: `/game/${player.game}`, dataset: { game: player.game, user: player.username || "" } }),
      };
      fill(entry.el, side(OTHER[orientation]), board.el, side(orientation), entry.result);
      this.entries.set(player.game, entry);
    }
    entry.receivedAt = performance.now();
    entry.player = player;
    const last = b.last_move ? squaresOf(b.last_move, geometry(variant)).map((sq) => sq.label) : [];
    entry.board.set({ fen: b.fen, lastMove: last });
    const host = this.simul.host.username || "?";
    entry.board.svg.setAttribute("aria-label", `${host} – ${player.username || "?"}`);
    const outcome = outcomeOf(player);
    const myMove = this.isHost() && hostToMove(player);
    Object.assign(entry.el.dataset, { status: outcome ? "ended" : b.status, ply: String(b.ply), toMove: b.side_to_move, outcome: outcome || "" });
    entry.el.classList.toggle("host-turn", myMove);
    entry.el.classList.toggle("ended", !!outcome);
    entry.names[player.color].textContent = player.username || "?";
    entry.names[hostSide].textContent = host;
    // The result says whose it is (the player's, as the server records it): under the host's name a bare
    // "lost" read as the host's loss (found by an audit).
    const result = outcome ? t(`simul.outcome.${outcome}`, { name: player.username || "?" }) : "";
    entry.result.textContent = result || (myMove ? t("simul.yourMove") : "");
    this.drawClocks(entry);
  }

  drawClocks(entry) {
    const b = entry.player.board;
    for (const color of ["white", "black"]) {
      const el = entry.clocks[color];
      if (!b.clocks) {
        el.hidden = true;
        continue;
      }
      const running = b.clocks.running && b.status === "started" && b.side_to_move === color;
      const ms = b.clocks[`${color}_ms`] - (running ? performance.now() - entry.receivedAt : 0);
      el.textContent = formatClock(ms);
      el.classList.toggle("ticking", running);
      el.title = t(`color.${color}`);
    }
  }

  tick() {
    for (const entry of this.entries.values()) {
      if (entry.player.board.status === "started") this.drawClocks(entry);
    }
  }
}
