// The lobby's log-in card: log in, or register (which logs in at once). The session changing redraws
// every page (main.js), so nothing else happens here on success.

import { login, register } from "./api.js";
import { h, toast } from "./dom.js";
import { t } from "./i18n.js";
import { navigate } from "./router.js";
import { card } from "./widgets.js";

export function authCard() {
  const username = h("input", { id: "username", name: "username", autocomplete: "username", required: true, maxlength: "30" });
  const password = h("input", {
    id: "password",
    name: "password",
    type: "password",
    autocomplete: "current-password",
    required: true,
  });
  const error = h("p", { class: "error", id: "auth-error", hidden: true });
  const run = async (action, button) => {
    error.hidden = true;
    button.disabled = true;
    try {
      await action(username.value.trim(), password.value);
      toast(t("auth.welcome", { name: username.value.trim() }));
      // Back to the page that asked for the log-in (the header's link carries it), on this site only.
      const next = new URLSearchParams(location.search).get("next");
      if (next && next.startsWith("/") && !next.startsWith("//")) navigate(next, { replace: true });
    } catch (e) {
      error.textContent = e.message;
      error.hidden = false;
    } finally {
      button.disabled = false;
    }
  };
  const loginButton = h("button", { type: "submit", id: "login-button" }, t("auth.login"));
  const registerButton = h("button", { type: "button", class: "secondary", id: "register-button" }, t("auth.register"));
  registerButton.addEventListener("click", () => {
    if (!username.reportValidity() || !password.reportValidity()) return;
    run(register, registerButton);
  });
  const form = h(
    "form",
    {
      class: "auth",
      onSubmit: (e) => {
        e.preventDefault();
        run(login, loginButton);
      },
    },
    h("label", { class: "field" }, h("span", {}, t("auth.username")), username),
    h("label", { class: "field" }, h("span", {}, t("auth.password")), password),
    error,
    h("div", { class: "row" }, loginButton, registerButton)
  );
  return card("login", t("auth.title"), h("p", { class: "muted" }, t("auth.intro")), form);
}
