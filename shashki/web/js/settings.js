// The settings page (/settings): the looks of the pages — theme, board style, piece style — with a board
// that shows the choice at once. Saved per account when logged in, in this browser otherwise (looks.js).
// An account also finds its security here (the server's accounts/security.py): changing the password,
// logging out everywhere, closing the account.

import { api, isAnonymous, loadSession } from "./api.js";
import { Board } from "./board.js";
import { h, toast } from "./dom.js";
import { has, t } from "./i18n.js";
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

// -- the account's security -----------------------------------------------------------------------------

/** The server's refusal in the player's language when the catalogue has it, else as the server said it. */
function reason(e) {
  const key = `settings.error.${e.code}`;
  return has(key) ? t(key, { count: (e.details.games || []).length }) : e.message;
}

function passwordInput(id, autocomplete, extra = {}) {
  return h("input", { id, name: id, type: "password", autocomplete, required: true, maxlength: "200", ...extra });
}

/** A form that sends itself once at a time, saying how it went in its status line or its error line. */
function securityForm(id, fields, button, send) {
  const status = h("p", { class: "muted", id: `${id}-status`, role: "status" });
  const error = h("p", { class: "error", id: `${id}-error`, role: "alert", hidden: true });
  const form = h(
    "form",
    {
      id,
      onSubmit: async (e) => {
        e.preventDefault();
        status.textContent = "";
        error.hidden = true;
        button.disabled = true;
        try {
          status.textContent = (await send()) || "";
        } catch (failure) {
          error.textContent = reason(failure);
          error.hidden = false;
        } finally {
          button.disabled = false;
        }
      },
    },
    fields,
    h("div", { class: "row" }, button),
    error,
    status
  );
  return form;
}

/** `changed()`: the account's other sessions have ended (the sessions card counts them again). */
function passwordCard(changed) {
  const current = passwordInput("settings-current-password", "current-password");
  const next = passwordInput("settings-new-password", "new-password", { minlength: "8" });
  const button = h("button", { type: "submit", id: "settings-password-button" }, t("settings.passwordChange"));
  const form = securityForm("settings-password", [
    h("label", { class: "field" }, h("span", {}, t("settings.passwordCurrent")), current),
    h("label", { class: "field" }, h("span", {}, t("settings.passwordNew")), next),
  ], button, async () => {
    const body = { current_password: current.value, new_password: next.value };
    const done = await api("POST", "/api/account/password", body);
    form.reset();
    changed();
    return t("settings.passwordChanged", { count: done.sessions_ended });
  });
  return h(
    "section",
    { class: "card settings-page", id: "settings-password-card" },
    h("h2", {}, t("settings.passwordTitle")),
    h("p", { class: "muted" }, t("settings.passwordLead")),
    form
  );
}

function sessionsCard() {
  const open = h("p", { id: "settings-sessions-open" });
  const count = async () => {
    const found = await api("GET", "/api/account/sessions");
    open.textContent = t("settings.sessionsOpen", { count: found.count });
  };
  count().catch(() => {});
  const others = h("button", { type: "submit", id: "settings-sessions-others" }, t("settings.sessionsEndOthers"));
  const form = securityForm("settings-sessions", [open], others, async () => {
    const done = await api("POST", "/api/account/sessions/end", { keep_current: true });
    await count();
    return t("settings.sessionsEnded", { count: done.ended });
  });
  // Everywhere, this browser too: the session is gone, and the page is redrawn for a visitor.
  const everywhere = h(
    "button",
    {
      type: "button",
      class: "secondary",
      id: "settings-sessions-all",
      onClick: async () => {
        try {
          await api("POST", "/api/account/sessions/end", { keep_current: false });
        } catch (e) {
          toast(reason(e), "error");
          return;
        }
        toast(t("auth.loggedOut"));
        await loadSession();
      },
    },
    t("settings.sessionsEndAll")
  );
  form.querySelector(".row").append(everywhere);
  const el = h(
    "section",
    { class: "card settings-page", id: "settings-sessions-card" },
    h("h2", {}, t("settings.sessionsTitle")),
    h("p", { class: "muted" }, t("settings.sessionsLead")),
    form
  );
  return { el, refresh: () => count().catch(() => {}) };
}

function closeCard() {
  const password = passwordInput("settings-close-password", "current-password");
  const button = h("button", { type: "submit", class: "secondary", id: "settings-close-button" }, t("settings.closeButton"));
  const form = securityForm("settings-close", [
    h("label", { class: "field" }, h("span", {}, t("auth.password")), password),
  ], button, async () => {
    if (!confirm(t("settings.closeConfirm"))) return "";
    await api("POST", "/api/account/close", { password: password.value });
    toast(t("settings.closed"));
    await loadSession(); // the session is gone: every page is redrawn for a visitor
    return "";
  });
  return h(
    "section",
    { class: "card settings-page", id: "settings-close-card" },
    h("h2", {}, t("settings.closeTitle")),
    h("p", { class: "muted" }, t("settings.closeLead")),
    form
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
  if (!isAnonymous()) {
    const sessions = sessionsCard();
    container.append(passwordCard(sessions.refresh), sessions.el, closeCard());
  }
  return { unmount() {} };
}
