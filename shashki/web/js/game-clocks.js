// A game's two player bars: name, presence and clock of each side, the side to move's clock counting
// down between the server's states (the server's clock decides; this only shows it running).
// The player's own clock turns red under ten seconds; while it runs there, a warning sounds once and then
// a tick each second. Until each side has made its first move in a timed game, the side to move's bar says
// how long it has left to make it before the game aborts itself (the state's `first_move_ms`), as lichess:
// beside its clock, in the bar's one row, so that the board never moves when it comes and goes.

import { fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { playSound } from "./sound.js";
import { playerLink } from "./widgets.js";

export const OTHER = { white: "black", black: "white" };
const LOW_MS = 20000; // a clock under this shows as running low
const CRITICAL_MS = 10000; // the player's own clock under this is red and ticks

export function formatClock(ms) {
  ms = Math.max(0, ms);
  const minutes = Math.floor(ms / 60000);
  const seconds = Math.floor((ms % 60000) / 1000);
  if (ms < 10000) return `${minutes}:${String(seconds).padStart(2, "0")}.${Math.floor((ms % 1000) / 100)}`;
  if (minutes >= 60) return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, "0")}:${String(seconds).padStart(2, "0")}`;
  return `${minutes}:${String(seconds).padStart(2, "0")}`;
}

export class Clocks {
  /** `ctx`: the game page's shared state (game, receivedAt, presence, isLive); `top`, `bottom`: the bars. */
  constructor(ctx, { top, bottom }) {
    this.ctx = ctx;
    this.top = top;
    this.bottom = bottom;
    this.warned = false; // whether the low-time warning has sounded in this game
    this.lastSecond = null; // the second of the player's running clock last ticked
  }

  /** Whether `color`'s clock is the player's own and under ten seconds: shown red. */
  critical(color, ms) {
    return color === this.ctx.myColor && ms !== null && ms < CRITICAL_MS;
  }

  /** What `color`'s clock shows now (null in a game without clocks). */
  ms(color) {
    const { game, receivedAt } = this.ctx;
    const clocks = game.clocks;
    if (!clocks) return null;
    let ms = clocks[`${color}_ms`];
    if (clocks.running === color && this.ctx.isLive()) ms -= performance.now() - receivedAt;
    return ms;
  }

  /** The whole seconds `color` has left to make its first move, or null when nothing is to be shown: a
   * timed game before each side has moved, its side to move (not the computer, which moves at once). */
  firstMoveSeconds(color) {
    const { game, receivedAt } = this.ctx;
    if (game.first_move_ms == null || !this.ctx.isLive() || game.side_to_move !== color || game[color].computer) {
      return null;
    }
    return Math.max(0, Math.ceil((game.first_move_ms - (performance.now() - receivedAt)) / 1000));
  }

  firstMoveText(seconds) {
    return t("game.firstMove", { count: seconds });
  }

  /** A player's rating beside the name, "?" while provisional (none for the computer or a visitor). */
  ratingOf(color) {
    const player = this.ctx.game[color];
    const rating = this.ctx.ratings?.[color];
    if (!rating || player.computer || player.anonymous) return null;
    return h("span", { class: "rating", dataset: { rating: color } }, ` ${rating.rating}${rating.provisional ? "?" : ""}`);
  }

  /** Both bars, `bottomColor`'s below the board. */
  draw(bottomColor) {
    const { game, presence } = this.ctx;
    if (!game) return;
    for (const [bar, color] of [
      [this.bottom, bottomColor],
      [this.top, OTHER[bottomColor]],
    ]) {
      const player = game[color];
      const online = presence[color];
      const ms = this.ms(color);
      const active = this.ctx.isLive() && game.side_to_move === color;
      const firstMove = this.firstMoveSeconds(color);
      bar.dataset.color = color;
      fill(
        bar,
        h("span", { class: `swatch ${color}`, title: t(`color.${color}`) }),
        h(
          "span",
          { class: "name" },
          player.computer ? null : h("span", { class: `presence ${online === false ? "off" : online ? "on" : ""}` }),
          playerLink(player),
          this.ratingOf(color),
          // An arena's berserk, as lidraughts marks it on the player's bar: half the clock, no increment.
          game.clocks?.berserk?.[color]
            ? h("span", { class: "berserk-mark", title: t("tournament.berserkMark") }, " ⚔")
            : null
        ),
        // Beside the clock, in the bar's one row: the bar keeps its height, so the board does not move.
        firstMove === null
          ? null
          : h("span", { class: "first-move", dataset: { firstMove: color } }, this.firstMoveText(firstMove)),
        ms === null
          ? null
          : h(
              "span",
              {
                class: `clock ${active && game.clocks.running === color ? "running" : ""} ${ms < LOW_MS ? "low" : ""} ${this.critical(color, ms) ? "critical" : ""}`,
                dataset: { clock: color },
              },
              formatClock(ms)
            )
      );
    }
  }

  /** Count the running clock down on screen (called ten times a second while the game is live). */
  tick() {
    if (!this.ctx.game.clocks) return;
    for (const color of ["white", "black"]) {
      const node = this.top.dataset.color === color ? this.top : this.bottom;
      const clock = node.querySelector(`[data-clock="${color}"]`);
      if (!clock) continue;
      const ms = this.ms(color);
      clock.textContent = formatClock(ms);
      clock.classList.toggle("low", ms < LOW_MS);
      clock.classList.toggle("critical", this.critical(color, ms));
      const firstMove = node.querySelector(`[data-first-move="${color}"]`);
      const seconds = this.firstMoveSeconds(color);
      if (firstMove && seconds !== null) firstMove.textContent = this.firstMoveText(seconds);
    }
    this.sound();
  }

  /** The warning when the player's running clock goes under ten seconds, then a tick each second. */
  sound() {
    const { game, myColor } = this.ctx;
    const ms = myColor && game.clocks.running === myColor ? this.ms(myColor) : null;
    if (ms === null || ms <= 0 || !this.critical(myColor, ms)) {
      this.lastSecond = null;
      return;
    }
    const second = Math.ceil(ms / 1000);
    if (second === this.lastSecond) return;
    playSound(this.warned ? "tick" : "low");
    this.warned = true;
    this.lastSecond = second;
  }
}
