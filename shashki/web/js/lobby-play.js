// The lobby's ways to start a game: quick pairing (the server's presets), and the forms for a seek, a
// challenge to one player, a challenge by link ("play with a friend") and a game against the computer. A
// game that starts opens its page; every button waits for the lobby channel (`data-needs-live`, see
// lobby.js). A visitor without an account plays casual games anonymously: the session is made at their
// first action (`ensureSession`), and what needs an account (rated games, a challenge by name) is not
// offered to them.

import { api, ensureSession } from "./api.js";
import { h, toast } from "./dom.js";
import { resync } from "./feed.js";
import { t } from "./i18n.js";
import { quickPairing } from "./meta.js";
import { navigate } from "./router.js";
import { act, card, termsFields, variantSelect } from "./widgets.js";

/** Quick pairing: one button per preset the server pairs; `waiting` shows the player's own open seek. */
export function quickCard(waiting, { anonymous = false } = {}) {
  const quickVariant = variantSelect({ id: "quick-variant", "aria-label": t("terms.variant") });
  const quickRated = h("input", { type: "checkbox", id: "quick-rated" });
  return card(
    "quick",
    t("lobby.quick"),
    h("div", { class: "row" }, quickVariant, anonymous ? null : h("label", { class: "check" }, quickRated, t("terms.rated"))),
    h(
      "div",
      { class: "presets" },
      quickPairing().map(({ preset, speed }) =>
        h(
          "button",
          {
            class: "preset",
            disabled: true,
            dataset: { preset, needsLive: "" },
            onClick: (e) =>
              act(e.currentTarget, async () => {
                await ensureSession();
                const data = await api("POST", "/api/quick-pairing", { preset, variant: quickVariant.value, rated: quickRated.checked });
                if (data.game) navigate(`/game/${data.game.id}`);
              }),
          },
          h("strong", {}, preset),
          h("small", {}, t(`speed.${speed}`))
        )
      )
    ),
    waiting
  );
}

function termsForm(id, terms, label, submit, ...before) {
  const form = h(
    "form",
    {
      id,
      onSubmit: (e) => {
        e.preventDefault();
        act(e.submitter || form.querySelector("button"), submit);
      },
    },
    ...before,
    terms.el,
    h("button", { type: "submit", disabled: true, dataset: { needsLive: "" } }, label)
  );
  return form;
}

/** The tabs of the "create a game" card: a seek, a challenge (for accounts), a friend by link, the
 * computer. `tabs.challenge(name)` opens the challenge form for that player. */
export function createTabs({ anonymous = false } = {}) {
  const rated = !anonymous; // rated games are between accounts
  const seekTerms = termsFields("seek", { rated });
  const seekForm = termsForm("seek-form", seekTerms, t("lobby.createSeek"), async () => {
    await ensureSession();
    const data = await api("POST", "/api/seeks", seekTerms.value());
    if (data.game) navigate(`/game/${data.game.id}`);
  });

  const challengeName = h("input", { id: "challenge-username", required: true, placeholder: t("auth.username") });
  const challengeTerms = termsFields("challenge");
  const challengeForm = termsForm(
    "challenge-form",
    challengeTerms,
    t("lobby.challenge"),
    async () => {
      await api("POST", "/api/challenges", { username: challengeName.value.trim(), ...challengeTerms.value() });
      toast(t("lobby.challengeSent", { name: challengeName.value.trim() }));
      resync();
    },
    h("label", { class: "field" }, h("span", {}, t("lobby.opponent")), challengeName)
  );

  const computerTerms = termsFields("computer", { level: true, rated: false, time: "unlimited", correspondence: false });
  const computerForm = termsForm("computer-form", computerTerms, t("lobby.playComputer"), async () => {
    await ensureSession();
    const data = await api("POST", "/api/computer-games", computerTerms.value());
    navigate(`/game/${data.game.id}`);
  });

  // Play with a friend: an open challenge; its page shows the link to send and waits for the friend.
  const friendTerms = termsFields("friend", { rated });
  const friendForm = termsForm(
    "friend-form",
    friendTerms,
    t("friend.create"),
    async () => {
      await ensureSession();
      const data = await api("POST", "/api/challenges/open", friendTerms.value());
      navigate(data.challenge.url);
    },
    h("p", { class: "muted" }, t("friend.intro"))
  );

  const tabs = tabbed([
    ["seek", t("lobby.tab.seek"), seekForm],
    anonymous ? null : ["challenge", t("lobby.tab.challenge"), challengeForm],
    ["friend", t("friend.tab"), friendForm],
    ["computer", t("lobby.tab.computer"), computerForm],
  ].filter(Boolean));
  tabs.challenge = (name) => {
    tabs.show("challenge");
    challengeName.value = name;
  };
  return tabs;
}

function tabbed(tabs) {
  const bar = h("div", { class: "tabs", role: "tablist" });
  const panels = h("div", {});
  const show = (id) => {
    for (const b of bar.children) b.classList.toggle("active", b.dataset.tab === id);
    for (const p of panels.children) p.hidden = p.dataset.panel !== id;
  };
  for (const [id, label, content] of tabs) {
    bar.append(h("button", { type: "button", role: "tab", dataset: { tab: id }, onClick: () => show(id) }, label));
    panels.append(h("div", { dataset: { panel: id }, role: "tabpanel" }, content));
  }
  show(tabs[0][0]);
  const el = h("div", {}, bar, panels);
  el.show = show;
  return el;
}
