// The settings page (/settings): the looks of the pages — theme, board style, piece style — with a board
// that shows the choice at once. Saved per account when logged in, in this browser otherwise (looks.js).

import { isAnonymous } from "./api.js";
import { Board } from "./board.js";
import { h, toast } from "./dom.js";
import { t } from "./i18n.js";
import { CHOICES, changeLooks, currentLooks } from "./looks.js";

// Men and kings of both colours, a last move and a capture to make: everything a style colours.
const PREVIEW = { fen: "W:Wc3,e3,Kg1,a1:Bd4,f6,Kb8,h8", lastMove: ["e5", "d4"] };

function group(name, looks, onPick) {
  return h(
    "fieldset",
    { class: "choices", id: `settings-${name}` },
    h("legend", {}, t(`settings.${name}`)),
    CHOICES[name].map((value) =>
      h(
        "label",
        { class: "choice" },
        h("input", {
          type: "radio",
          name,
          value,
          checked: looks[name] === value,
          onChange: () => onPick(name, value),
        }),
        h("span", { class: `swatch-${name} ${value}`, "aria-hidden": "true" }),
        h("span", {}, t(`settings.${name}.${value}`))
      )
    )
  );
}

export async function mount(container) {
  const looks = currentLooks();
  const saved = h("p", { class: "muted", id: "settings-saved", role: "status" });
  const board = new Board({ variant: "russian-giveaway", coordinates: true });
  board.svg.setAttribute("aria-label", t("settings.preview"));
  board.set(PREVIEW);

  async function pick(name, value) {
    saved.textContent = "";
    try {
      await changeLooks({ [name]: value });
      saved.textContent = t(isAnonymous() ? "settings.savedBrowser" : "settings.savedAccount");
    } catch (e) {
      toast(t("settings.saveFailed", { message: e.message }), "error");
    }
  }

  container.append(
    h(
      "section",
      { class: "card settings-page" },
      h("h1", {}, t("settings.title")),
      h("p", { class: "muted" }, t(isAnonymous() ? "settings.leadVisitor" : "settings.leadAccount")),
      h(
        "div",
        { class: "settings-grid" },
        h("form", { class: "settings-form", onSubmit: (e) => e.preventDefault() },
          group("theme", looks, pick),
          group("board", looks, pick),
          group("pieces", looks, pick),
          saved
        ),
        h("figure", { class: "settings-preview" }, board.el, h("figcaption", { class: "muted" }, t("settings.preview")))
      )
    )
  );
  return { unmount() {} };
}
