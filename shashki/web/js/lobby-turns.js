// The lobby's "Your turn" list: the player's games waiting for their move, the least time left first
// (GET /api/account/your-turn), with the time left to each — a correspondence game's deadline, a running
// clock — read again whenever the lobby channel tells of a move, a game starting or ending.

import { api } from "./api.js";
import { fill, h } from "./dom.js";
import { formatLeft, leftUntil } from "./corr.js";
import { t } from "./i18n.js";
import { card, playerLabel, variantName } from "./widgets.js";

const REFRESH_ON = new Set(["notification", "playing", "gameStart", "gameFinish"]);

export class YourTurn {
  constructor() {
    this.list = h("ul", { class: "games your-turn", id: "your-turn-list" });
    this.box = card("your-turn", t("corr.yourTurnTitle"), this.list);
    this.box.hidden = true;
    this.games = [];
    this.timer = setInterval(() => this.draw(), 30000);
  }

  /** A lobby channel message: read the list again if it may have changed. */
  heard(message) {
    if (REFRESH_ON.has(message.type)) this.refresh();
  }

  async refresh() {
    try {
      this.games = (await api("GET", "/api/account/your-turn")).games;
    } catch {
      return;
    }
    this.draw();
  }

  draw() {
    this.box.hidden = !this.games.length;
    fill(
      this.list,
      ...this.games.map((g) => {
        const left = leftUntil(g.deadline);
        const time = left === null ? t("corr.noLimit") : t("corr.left", { time: formatLeft(left) });
        return h(
          "li",
          { dataset: { gameId: g.id }, class: left !== null && left < 3600000 ? "low" : "" },
          h(
            "a",
            { href: `/game/${g.id}` },
            t("corr.against", { name: playerLabel(g.opponent) }),
            h("small", {}, ` ${variantName(g.variant)} · `, h("span", { class: "time-left" }, time))
          )
        );
      })
    );
  }

  close() {
    clearInterval(this.timer);
  }
}
