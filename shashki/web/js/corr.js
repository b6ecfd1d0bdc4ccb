// Correspondence games (days per move): how their time left reads, and the line of the game page that
// shows it ("3 days/move · 2 d 5 h to move"), counting down between the server's states. The server's
// deadline decides (it ends the game on time); this only shows it.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** "2 d 5 h", "5 h 12 min", "12 min" (under a minute: "0 min"). */
export function formatLeft(ms) {
  const minutes = Math.max(0, Math.floor(ms / 60000));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  if (days) return t("corr.dh", { d: days, h: hours });
  if (hours) return t("corr.hm", { h: hours, m: minutes % 60 });
  return t("corr.m", { m: minutes });
}

/** The time left to a deadline (an ISO date) now, in ms. */
export function leftUntil(deadline) {
  return deadline ? Date.parse(deadline) - Date.now() : null;
}

/** The game page's line for a correspondence game: `update(game)` after each state, `el` to place. */
export class CorrTime {
  constructor() {
    this.el = h("p", { class: "corr-time", id: "corr-time", hidden: true });
    this.game = null;
    this.timer = setInterval(() => this.draw(), 30000);
  }

  update(game) {
    this.game = game;
    this.draw();
  }

  draw() {
    const game = this.game;
    const corr = game && game.correspondence;
    this.el.hidden = !corr || game.status !== "started" || !corr.deadline;
    if (this.el.hidden) return;
    const left = leftUntil(corr.deadline);
    this.el.textContent = t("corr.timeLeft", { time: formatLeft(left), color: t(`color.${game.side_to_move}`) });
    this.el.classList.toggle("low", left < 3600000);
  }

  close() {
    clearInterval(this.timer);
  }
}
