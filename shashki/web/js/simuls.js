// /simuls: the simultaneous exhibitions waiting for players, those being played and the last finished,
// and the form to announce one (a registered player hosts it: lidraughts' and lichess's "Host a simul").
//
// The list is the server's (GET /api/simuls); it is fetched again when the lobby channel says the simuls
// changed (its {"type": "simuls"} nudge: one was announced, joined, started, ended), and every half minute
// besides (a nudge missed while the channel was down).

import { api, session } from "./api.js";
import { fill, h } from "./dom.js";
import { subscribe } from "./feed.js";
import { t } from "./i18n.js";
import { loginHref, navigate } from "./router.js";
import { simulItem } from "./simul-widgets.js";
import { refetcher } from "./tournament-widgets.js";
import { act, card, variantSelect } from "./widgets.js";

const GROUPS = ["created", "started", "finished"];
const EVERY_MS = 30_000;

function field(label, control, attrs = {}) {
  return h("label", { class: "field", ...attrs }, h("span", {}, label), control);
}

function number(id, value, min, max, step = "1") {
  return h("input", { type: "number", id, name: id, value: String(value), min: String(min), max: String(max), step });
}

/** The form that announces a simul: its name, variant, clock, the host's extra time and colour, a word. */
function createForm() {
  const name = h("input", { type: "text", id: "simul-name-input", name: "name", maxlength: "60", required: true, placeholder: t("simul.namePlaceholder") });
  const variant = variantSelect({ id: "simul-variant", name: "variant" });
  const minutes = number("simul-clock-minutes", 10, 0.5, 180, "0.5");
  const increment = number("simul-clock-increment", 5, 0, 180);
  const extra = number("simul-extra-minutes", 0, 0, 60);
  const color = h(
    "select",
    { id: "simul-color", name: "host_color" },
    ["white", "black", "random"].map((c) => h("option", { value: c }, t(`color.choose.${c}`)))
  );
  const text = h("textarea", { id: "simul-text-input", name: "text", rows: "3", maxlength: "2000" });
  const error = h("p", { class: "error", id: "simul-error", hidden: true });
  const submit = h("button", { type: "submit", id: "simul-create" }, t("simul.create"));

  function body() {
    return {
      name: name.value.trim(),
      variant: variant.value,
      clock: { initial: Math.round(+minutes.value * 60), increment: Math.round(+increment.value) },
      host_extra_minutes: +extra.value || 0,
      host_color: color.value,
      text: text.value.trim(),
    };
  }

  return h(
    "form",
    {
      id: "simul-form",
      class: "simul-form",
      onSubmit: (e) => {
        e.preventDefault();
        error.hidden = true;
        act(submit, async () => {
          try {
            const simul = await api("POST", "/api/simuls", body());
            navigate(`/simul/${simul.id}`);
          } catch (e) {
            error.textContent = e.message;
            error.hidden = false;
            if (e.code === "simul_exists" && e.details.simul) {
              error.append(" ", h("a", { href: `/simul/${e.details.simul}`, id: "simul-existing" }, t("simul.yours")));
            }
          }
        });
      },
    },
    field(t("simul.name"), name),
    h(
      "div",
      { class: "terms" },
      field(t("terms.variant"), variant),
      field(t("time.minutes"), minutes),
      field(t("time.increment"), increment),
      field(t("simul.extraMinutes"), extra, { title: t("simul.extraHelp") }),
      field(t("simul.hostColorLabel"), color)
    ),
    field(t("simul.description"), text),
    error,
    submit
  );
}

export async function mount(container) {
  const lists = {};
  const boxes = GROUPS.map((group) => {
    lists[group] = h("ul", { class: "simuls", id: `simuls-${group}` });
    return card(`simuls-${group}-card`, t(`simul.list.${group}`), lists[group]);
  });
  const signedIn = session.user && !session.user.anonymous;
  const create = card(
    "simul-create-card",
    t("simul.createTitle"),
    h("p", { class: "muted" }, t("simul.about")),
    signedIn ? createForm() : h("p", { class: "muted" }, h("a", { href: loginHref(), id: "simul-login" }, t("simul.loginToCreate")))
  );
  container.append(
    h("div", { class: "simuls-page" }, h("div", { class: "column" }, h("h1", {}, t("simul.title")), ...boxes), h("div", { class: "column" }, create))
  );

  const load = refetcher(
    () => api("GET", "/api/simuls"),
    (data) => {
      for (const group of GROUPS) {
        const items = data[group] || [];
        const none = h("li", { class: "muted empty" }, t(`simul.list.none.${group}`));
        fill(lists[group], items.length ? items.map(simulItem) : none);
      }
    }
  );
  await load();
  const unsubscribe = subscribe((message) => {
    if (message.type === "simuls") load();
  });
  const timer = setInterval(load, EVERY_MS);

  return {
    unmount() {
      unsubscribe();
      clearInterval(timer);
    },
  };
}
