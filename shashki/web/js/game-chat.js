// A game's chat. Two rooms, as on lichess: the players' own room, and the spectators' room everyone
// reads. Lines come over the game's socket and, for what was said before the page opened, from the API.

import { api } from "./api.js";
import { fill, h, toast } from "./dom.js";
import { errorText, t } from "./i18n.js";

export class Chat {
  /** `ctx`: the game page's shared state (id, me); `el`: the chat's section, hidden until `open()`. */
  constructor(ctx, el) {
    this.ctx = ctx;
    this.el = el;
    this.lines = h("ol", { class: "lines", id: "chat-lines" });
    this.seen = new Set();
  }

  /** One line, once (the socket and the API may both bring it). */
  add(line) {
    if (line.id !== undefined) {
      if (this.seen.has(line.id)) return;
      this.seen.add(line.id);
    }
    const room = line.room === "spectator" ? h("small", { class: "room" }, t("game.chatSpectators"), " ") : null;
    this.lines.append(h("li", { class: `room-${line.room}` }, room, h("strong", {}, `${line.username}: `), line.text));
    this.lines.scrollTop = this.lines.scrollHeight;
  }

  /** Show the chat with what was said so far; a form to write in when the server would take a line
   * (not to a visitor the rules keep out of the chat: an anonymous player among strangers, a closed
   * spectators' room), else the reason. */
  async open() {
    const { id, me } = this.ctx;
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
            this.add(data.line);
          } catch (err) {
            toast(err.message, "error");
          }
        },
      },
      input
    );
    let data = {};
    try {
      data = await api("GET", `/api/games/${id}/chat`);
    } catch {
      /* an empty chat */
    }
    const refused = data.write?.refused;
    let below = h("p", { class: "muted" }, t("game.chatLogin"));
    if (me && data.write && !refused) below = form;
    else if (me && refused) below = h("p", { class: "muted", id: "chat-closed" }, errorText(refused));
    fill(this.el, h("h3", {}, t("game.chat")), this.lines, below);
    this.el.hidden = false;
    for (const line of data.lines || []) this.add(line);
  }
}
