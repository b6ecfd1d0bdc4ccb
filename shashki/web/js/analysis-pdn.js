// PDN import on the analysis board: paste the text or choose a file, the server reads every game in it
// (/api/analysis/pdn, the one PDN reader, variations and comments kept) and the page lists them; each
// opens on the board. A game with an illegal move is listed with the server's message (game, line, move).

import { api } from "./api.js";
import { h, toast } from "./dom.js";
import { t } from "./i18n.js";
import { variantName } from "./widgets.js";

export class PdnImport {
  /** `onOpen(game)`: show an imported game ({variant, double_diagonal, tree, tags, ...}) on the board. */
  constructor({ onOpen }) {
    this.onOpen = onOpen;
    this.games = [];
    this.el = h("section", { class: "card analysis-pdn", id: "pdn-import" });
    this.draw();
  }

  async import(text) {
    if (!text.trim()) return;
    try {
      const data = await api("POST", "/api/analysis/pdn", { pdn: text });
      this.games = data.games;
    } catch (e) {
      this.games = [];
      toast(e.message, "error");
    }
    this.drawList();
  }

  draw() {
    const text = h("textarea", { id: "pdn-text", rows: 4, placeholder: t("pdnimport.placeholder"), spellcheck: false, "aria-label": t("pdnimport.paste") });
    const file = h("input", {
      type: "file",
      id: "pdn-file",
      accept: ".pdn,.txt,text/plain",
      "aria-label": t("pdnimport.file"),
      onChange: async (e) => {
        const chosen = e.target.files[0];
        if (!chosen) return;
        text.value = await chosen.text();
        this.import(text.value);
      },
    });
    this.list = h("ol", { class: "pdn-games", id: "pdn-games" });
    this.el.replaceChildren(
      h("h2", {}, t("pdnimport.title")),
      text,
      h(
        "div",
        { class: "row" },
        h("button", { id: "pdn-import-button", onClick: () => this.import(text.value) }, t("pdnimport.import")),
        h("label", { class: "button secondary file-button" }, t("pdnimport.file"), file)
      ),
      this.list
    );
    this.drawList();
  }

  drawList() {
    if (!this.list) return;
    const items = this.games.map((game) => {
      const tags = game.tags || {};
      const players = `${tags.White || "?"} – ${tags.Black || "?"}`;
      const title = [`${game.index}.`, players, tags.Event && tags.Event !== "?" ? `(${tags.Event})` : "", game.result].filter(Boolean).join(" ");
      if (game.error) {
        return h("li", { class: "pdn-game bad", dataset: { game: String(game.index) } }, h("span", {}, title), h("small", { class: "error" }, game.error.message));
      }
      return h(
        "li",
        { class: "pdn-game", dataset: { game: String(game.index) } },
        h("button", { class: "link", onClick: () => this.onOpen(game) }, title),
        h("small", { class: "muted" }, ` ${variantName(game.variant)}`)
      );
    });
    if (this.games.length) items.unshift(h("li", { class: "muted" }, t("pdnimport.found", { n: this.games.length })));
    this.list.replaceChildren(...items);
  }
}
