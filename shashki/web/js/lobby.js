// The lobby: log in or register; quick pairing, seeks, challenges, the computer; what is open and being
// played, live over the lobby WebSocket.

import { api, endpoint, login, register, session } from "./api.js";
import { resync, subscribe } from "./feed.js";
import { clear, fill, h, toast } from "./dom.js";
import { t } from "./i18n.js";
import { navigate } from "./main.js";
import { playerLabel, playerLink, termsFields, timeControlLabel, variantName, variantSelect } from "./widgets.js";

const QUICK_PAIRING = ["1+0", "3+0", "3+2", "5+0", "5+3", "10+0", "15+15"];
const DECLINE_REASONS = ["generic", "later", "too_fast", "too_slow", "time_control", "rated", "casual", "variant"];

function showError(e) {
  toast(e.message || String(e), "error");
}

async function act(button, action) {
  button.disabled = true;
  try {
    return await action();
  } catch (e) {
    showError(e);
  } finally {
    button.disabled = false;
  }
}

function card(id, title, ...children) {
  return h("section", { class: "card", id }, h("h2", {}, title), ...children);
}

function authCard() {
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

export async function mount(container) {
  const logged = !!session.user;
  const me = session.user;
  const seeksBody = h("tbody");
  const playingList = h("ul", { class: "games" });
  const watchList = h("ul", { class: "games" });
  const challengesIn = h("ul", { class: "challenges", id: "challenges-in" });
  const challengesOut = h("ul", { class: "challenges", id: "challenges-out" });
  const waiting = h("p", { class: "waiting", id: "waiting", hidden: true });
  const state = { seeks: [], in: [], out: [], playing: [] };
  let live = false; // whether the lobby channel is up (see setLive)

  // -- play ------------------------------------------------------------------------------------------
  const quickVariant = variantSelect({ id: "quick-variant", "aria-label": t("terms.variant") });
  const quickRated = h("input", { type: "checkbox", id: "quick-rated" });
  const quick = card(
    "quick",
    t("lobby.quick"),
    h("div", { class: "row" }, quickVariant, h("label", { class: "check" }, quickRated, t("terms.rated"))),
    h(
      "div",
      { class: "presets" },
      QUICK_PAIRING.map((preset) =>
        h(
          "button",
          {
            class: "preset",
            disabled: true,
            dataset: { preset, needsLive: "" },
            onClick: (e) =>
              act(e.currentTarget, async () => {
                const data = await api("POST", "/api/quick-pairing", {
                  preset,
                  variant: quickVariant.value,
                  rated: quickRated.checked,
                });
                if (data.game) navigate(`/game/${data.game.id}`);
              }),
          },
          h("strong", {}, preset),
          h("small", {}, t(`speed.${speedOf(preset)}`))
        )
      )
    ),
    waiting
  );

  const seekTerms = termsFields("seek");
  const seekForm = h(
    "form",
    {
      id: "seek-form",
      onSubmit: (e) => {
        e.preventDefault();
        act(e.submitter || seekForm.querySelector("button"), async () => {
          const data = await api("POST", "/api/seeks", seekTerms.value());
          if (data.game) navigate(`/game/${data.game.id}`);
        });
      },
    },
    seekTerms.el,
    h("button", { type: "submit", disabled: true, dataset: { needsLive: "" } }, t("lobby.createSeek"))
  );

  const challengeName = h("input", { id: "challenge-username", required: true, placeholder: t("auth.username") });
  const challengeTerms = termsFields("challenge");
  const challengeForm = h(
    "form",
    {
      id: "challenge-form",
      onSubmit: (e) => {
        e.preventDefault();
        act(e.submitter || challengeForm.querySelector("button"), async () => {
          await api("POST", "/api/challenges", { username: challengeName.value.trim(), ...challengeTerms.value() });
          toast(t("lobby.challengeSent", { name: challengeName.value.trim() }));
          resync();
        });
      },
    },
    h("label", { class: "field" }, h("span", {}, t("lobby.opponent")), challengeName),
    challengeTerms.el,
    h("button", { type: "submit", disabled: true, dataset: { needsLive: "" } }, t("lobby.challenge"))
  );

  const computerTerms = termsFields("computer", { level: true, rated: false, time: "unlimited" });
  const computerForm = h(
    "form",
    {
      id: "computer-form",
      onSubmit: (e) => {
        e.preventDefault();
        act(e.submitter || computerForm.querySelector("button"), async () => {
          const data = await api("POST", "/api/computer-games", computerTerms.value());
          navigate(`/game/${data.game.id}`);
        });
      },
    },
    computerTerms.el,
    h("button", { type: "submit", disabled: true, dataset: { needsLive: "" } }, t("lobby.playComputer"))
  );

  const tabs = tabbed([
    ["seek", t("lobby.tab.seek"), seekForm],
    ["challenge", t("lobby.tab.challenge"), challengeForm],
    ["computer", t("lobby.tab.computer"), computerForm],
  ]);

  // -- what is open ----------------------------------------------------------------------------------
  const seeksTable = h(
    "table",
    { class: "seeks", id: "seeks" },
    h(
      "thead",
      {},
      h("tr", {}, [t("lobby.player"), t("terms.variant"), t("terms.time"), t("lobby.mode"), t("terms.color"), ""].map((c) => h("th", {}, c)))
    ),
    seeksBody
  );

  function renderSeeks() {
    clear(seeksBody);
    const mine = state.seeks.find((s) => me && s.user.id === me.id);
    waiting.hidden = !mine;
    if (mine) {
      fill(waiting, 
        h("span", { class: "spinner" }),
        t("lobby.waiting", { time: timeControlLabel(mine.time_control), variant: variantName(mine.variant) }),
        " ",
        h("button", { class: "link", onClick: (e) => act(e.currentTarget, () => api("DELETE", `/api/seeks/${mine.id}`)) }, t("lobby.cancel"))
      );
    }
    if (!state.seeks.length) {
      seeksBody.append(h("tr", {}, h("td", { colspan: 6, class: "muted" }, t("lobby.noSeeks"))));
      return;
    }
    for (const seek of state.seeks) {
      const own = me && seek.user.id === me.id;
      const action = own
        ? h("button", { class: "secondary cancel-seek", onClick: (e) => act(e.currentTarget, () => api("DELETE", `/api/seeks/${seek.id}`)) }, t("lobby.cancel"))
        : h(
            "button",
            {
              class: "accept-seek",
              disabled: !logged || !live,
              onClick: (e) =>
                act(e.currentTarget, async () => {
                  const data = await api("POST", `/api/seeks/${seek.id}/accept`);
                  navigate(`/game/${data.game.id}`);
                }),
            },
            t("lobby.accept")
          );
      seeksBody.append(
        h(
          "tr",
          { dataset: { seekId: seek.id, user: seek.user.username } },
          h("td", {}, playerLink(seek.user)),
          h("td", {}, variantName(seek.variant), seek.double_diagonal ? " ⧄" : ""),
          h("td", {}, timeControlLabel(seek.time_control)),
          h("td", {}, t(seek.rated ? "terms.rated" : "terms.casual")),
          h("td", {}, t(`color.choose.${seek.color}`)),
          h("td", {}, action)
        )
      );
    }
  }

  function challengeTermsText(c) {
    return `${variantName(c.variant)} · ${timeControlLabel(c.time_control)} · ${t(c.rated ? "terms.rated" : "terms.casual")}`;
  }

  function renderChallenges() {
    clear(challengesIn);
    clear(challengesOut);
    for (const c of state.in) {
      const reason = h(
        "select",
        { class: "decline-reason", "aria-label": t("lobby.declineReason") },
        DECLINE_REASONS.map((r) => h("option", { value: r }, t(`decline.${r}`)))
      );
      challengesIn.append(
        h(
          "li",
          { dataset: { challengeId: c.id } },
          h("span", {}, t("lobby.challengedBy", { name: playerLabel(c.challenger) }), " — ", challengeTermsText(c)),
          h(
            "span",
            { class: "actions" },
            h(
              "button",
              {
                class: "accept-challenge",
                onClick: (e) =>
                  act(e.currentTarget, async () => {
                    const data = await api("POST", `/api/challenges/${c.id}/accept`);
                    navigate(`/game/${data.game.id}`);
                  }),
              },
              t("lobby.accept")
            ),
            reason,
            h(
              "button",
              {
                class: "secondary decline-challenge",
                onClick: (e) =>
                  act(e.currentTarget, async () => {
                    await api("POST", `/api/challenges/${c.id}/decline`, { reason: reason.value });
                    state.in = state.in.filter((x) => x.id !== c.id);
                    renderChallenges();
                  }),
              },
              t("lobby.decline")
            )
          )
        )
      );
    }
    for (const c of state.out) {
      challengesOut.append(
        h(
          "li",
          { dataset: { challengeId: c.id } },
          h("span", {}, t("lobby.challengeTo", { name: playerLabel(c.dest) }), " — ", challengeTermsText(c)),
          h(
            "button",
            {
              class: "secondary cancel-challenge",
              onClick: (e) =>
                act(e.currentTarget, async () => {
                  await api("POST", `/api/challenges/${c.id}/cancel`);
                  state.out = state.out.filter((x) => x.id !== c.id);
                  renderChallenges();
                }),
            },
            t("lobby.cancel")
          )
        )
      );
    }
    challengesBox.hidden = !logged || (!state.in.length && !state.out.length);
  }

  function gameItem(game) {
    return h(
      "li",
      { dataset: { gameId: game.id } },
      h(
        "a",
        { href: `/game/${game.id}` },
        `${playerLabel(game.white)} – ${playerLabel(game.black)}`,
        h("small", {}, ` ${variantName(game.variant)} · ${timeControlLabel(game.clocks)}`)
      )
    );
  }

  function renderPlaying() {
    clear(playingList);
    for (const game of state.playing) playingList.append(gameItem(game));
    playingBox.hidden = !state.playing.length;
  }

  const challengesBox = card("challenges", t("lobby.challenges"), challengesIn, challengesOut);
  const playingBox = card("playing", t("lobby.playing"), playingList);
  const watchBox = card("watch", t("lobby.watch"), watchList);
  challengesBox.hidden = true;
  playingBox.hidden = true;
  watchBox.hidden = true;

  container.append(
    h(
      "div",
      { class: "lobby" },
      h(
        "div",
        { class: "column" },
        logged ? null : authCard(),
        quick,
        card("create", t("lobby.create"), logged ? tabs : h("p", { class: "muted" }, t("lobby.loginToPlay")))
      ),
      h(
        "div",
        { class: "column" },
        challengesBox,
        playingBox,
        card("open-seeks", t("lobby.seeks"), seeksTable),
        watchBox,
        card(
          "about",
          t("lobby.aboutTitle"),
          h("p", {}, t("lobby.about")),
          h("p", {}, h("a", { href: "/rules/russian-giveaway" }, t("lobby.readRules")))
        )
      )
    )
  );
  renderSeeks();
  if (!logged && location.hash === "#login") container.querySelector("#username")?.focus();
  // From a profile's "Challenge" button: /?challenge=name opens the challenge form for that player.
  const challenged = new URLSearchParams(location.search).get("challenge");
  if (logged && challenged) {
    tabs.show("challenge");
    challengeName.value = challenged;
    container.querySelector("#create")?.scrollIntoView();
  }

  // -- live: the lobby channel (feed.js) keeps the lists current --------------------------------------
  // Games are started only while the channel is up: the news that a game has started (and opens it) comes
  // through it, so nothing is offered before its first lists have arrived or while it is down.
  function setLive(value) {
    live = value;
    for (const button of container.querySelectorAll("[data-needs-live]")) button.disabled = !(logged && live);
    renderSeeks();
  }
  const unsubscribe = subscribe((message) => {
    switch (message.type) {
      case "offline":
        setLive(false);
        break;
      case "seeks":
        state.seeks = message.seeks;
        if (!live) setLive(true);
        else renderSeeks();
        break;
      case "challenges":
        state.in = message.in;
        state.out = message.out;
        renderChallenges();
        break;
      case "playing":
        state.playing = message.games;
        renderPlaying();
        break;
      case "challenge":
        state.in = [...state.in.filter((c) => c.id !== message.challenge.id), message.challenge];
        renderChallenges();
        toast(t("lobby.challengedBy", { name: playerLabel(message.challenge.challenger) }));
        break;
      case "challengeCancelled":
      case "challengeDeclined":
        state.in = state.in.filter((c) => c.id !== message.id);
        state.out = state.out.filter((c) => c.id !== message.id);
        renderChallenges();
        break;
      case "gameFinish":
        state.playing = state.playing.filter((g) => g.id !== message.game);
        renderPlaying();
        break;
    }
  });

  // Games being played by anyone, refreshed now and then (the server lists them at /api/now-playing).
  let watchTimer = null;
  if (await endpoint("GET", "/api/now-playing")) {
    const loadWatch = async () => {
      try {
        const data = await api("GET", "/api/now-playing?limit=20");
        const games = data.games || [];
        fill(watchList, ...games.map(gameItem));
        watchBox.hidden = !games.length;
      } catch {
        /* keep the last list */
      }
    };
    loadWatch();
    watchTimer = setInterval(loadWatch, 10000);
  }

  return {
    unmount() {
      unsubscribe();
      clearInterval(watchTimer);
    },
  };
}

function speedOf(preset) {
  const [minutes, increment] = preset.split("+").map(Number);
  const estimate = minutes * 60 + 40 * increment; // seconds for a 40-move game, as lichess estimates
  if (estimate < 180) return "bullet";
  if (estimate < 480) return "blitz";
  if (estimate < 1500) return "rapid";
  return "classical";
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
