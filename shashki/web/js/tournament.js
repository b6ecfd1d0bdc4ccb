// /tournament/{id}: one tournament, live. The countdown to its start or its end, the buttons to join
// (with the password of a private one), withdraw or pause, the standings, the pairings and running
// games, and the podium at the end (issue 13, point 5).
//
// Everything shown is the server's: the tournament's WebSocket (/ws/tournaments/{id}) sends the whole
// tournament on connecting and on every change, and tells a player who has just been paired which game
// is theirs — the page then opens that game at once, as lidraughts does.

import { api, LiveSocket, session } from "./api.js";
import { fill, h, toast } from "./dom.js";
import { t } from "./i18n.js";
import { loginHref, navigate } from "./router.js";
import { Games, podium } from "./tournament-games.js";
import { Standings } from "./tournament-standings.js";
import { countdowns, currentGame, termsText } from "./tournament-widgets.js";
import { act, card } from "./widgets.js";

export async function mount(container, { id }) {
  const me = session.user;
  const clocks = countdowns();
  const standings = new Standings(id);
  const games = new Games(id);
  let tour = null;
  let heard = false; // the socket has sent the tournament: newer than any answer to the first request

  const el = {
    title: h("h1", { id: "tournament-name", translate: "no" }), // a name its creator chose
    terms: h("p", { class: "terms-line", id: "tournament-terms" }),
    countdown: h("p", { class: "countdown big", id: "tournament-countdown", "aria-live": "off" }),
    facts: h("p", { class: "muted", id: "tournament-facts" }),
    buttons: h("div", { class: "controls", id: "tournament-controls" }),
    password: h("form", { class: "row", id: "tournament-join-form", hidden: true }),
    podium: h("div", { id: "podium-slot" }),
    pdn: h("p", { class: "muted" }),
  };
  const page = h(
    "div",
    { class: "tournament-page", dataset: { tournamentId: id } },
    h(
      "div",
      { class: "column" },
      h("section", { class: "card", id: "tournament-head" }, el.title, el.terms, el.countdown, el.facts, el.buttons, el.password),
      el.podium,
      card("tournament-standings", t("tournament.standings"), standings.el)
    ),
    h("div", { class: "column" }, games.el, el.pdn)
  );
  container.append(page);

  // -- the live channel ---------------------------------------------------------------------------------
  const socket = new LiveSocket(`/ws/tournaments/${id}`, onMessage, (connected) => page.classList.toggle("offline", !connected));

  function onMessage(message) {
    if (message.type === "tournament") {
      heard = true;
      apply(message.tournament);
    }
    else if (message.type === "paired" && message.game) navigate(`/game/${message.game}`);
    else if (message.type === "error" && !tour) notFound();
  }

  function notFound() {
    clocks.stop();
    fill(container, h("section", { class: "card" }, h("h1", {}, t("tournament.notFound")), h("a", { href: "/tournaments" }, t("tournament.nav"))));
  }

  // The socket brings the tournament; the REST answer draws it at once (and says when there is none).
  api("GET", `/api/tournaments/${id}`)
    .then((answer) => heard || apply(answer))
    .catch((e) => {
      if (e.status !== 404) return console.warn("tournament:", e);
      socket.close();
      notFound();
    });

  function apply(next) {
    if (!next || next.id !== id) return;
    // A new game of mine in the tournament is a pairing, even if its "paired" message was missed (it
    // may come between the first answer and the socket's opening).
    const game = currentGame(next, me && me.username);
    if (tour && game && game !== currentGame(tour, me && me.username) && next.status === "started") {
      navigate(`/game/${game}`);
      return;
    }
    tour = next;
    page.dataset.status = tour.status;
    page.dataset.system = tour.system;
    document.title = `Shashki — ${tour.name}`;
    el.title.textContent = tour.name;
    el.terms.textContent = termsText(tour);
    clocks.track(el.countdown, tour);
    drawFacts();
    drawButtons();
    standings.update(tour);
    games.update(tour);
    games.el.hidden = tour.status === "created";
    if (tour.status === "finished" && (tour.podium || []).length) fill(el.podium, podium(tour.podium));
    else fill(el.podium);
    if (tour.status !== "created") {
      fill(el.pdn, h("a", { href: `/api/tournaments/${id}/games.pdn`, download: `tournament-${id}.pdn`, id: "tournament-pdn" }, t("tournament.downloadPdn")));
    }
  }

  function drawFacts() {
    const parts = [t("tournament.playersCount", { count: tour.players ?? 0 })];
    if (tour.created_by) parts.push(t("tournament.createdBy", { name: typeof tour.created_by === "string" ? tour.created_by : tour.created_by.username }));
    const c = tour.conditions || {};
    if (tour.private) parts.push(t("tournament.private"));
    if (c.min_rating) parts.push(t("tournament.minRatingIs", { rating: c.min_rating }));
    if (c.min_games) parts.push(t("tournament.minGamesIs", { games: c.min_games }));
    if (tour.starts_at && tour.status === "created") parts.push(t("tournament.startsAtIs", { time: new Date(tour.starts_at).toLocaleString() }));
    el.facts.textContent = parts.join(" · ");
  }

  // -- joining, withdrawing, pausing ------------------------------------------------------------------------
  async function post(action, body) {
    apply(await api("POST", `/api/tournaments/${id}/${action}`, body));
  }

  function button(key, idName, action, cls = "") {
    return h("button", { id: idName, class: cls, onClick: (e) => act(e.currentTarget, action) }, t(key));
  }

  function drawButtons() {
    el.buttons.replaceChildren();
    if (tour.status === "finished") return;
    if (!me) {
      el.buttons.append(h("a", { href: loginHref(), class: "button", id: "tournament-login" }, t("tournament.loginToJoin")));
      return;
    }
    const mine = tour.me || {};
    const arena = tour.system === "arena";
    const playing = mine.joined && !mine.withdrawn;
    if (!playing || (arena && mine.paused)) {
      const label = mine.paused ? "tournament.resume" : "tournament.join";
      el.buttons.append(button(label, "tournament-join", () => (tour.private && !mine.joined ? askPassword() : post("join", { password: null }))));
    }
    if (playing && arena && !mine.paused && tour.status === "started") {
      el.buttons.append(button("tournament.pause", "tournament-pause", () => post("pause"), "secondary"));
    }
    if (playing) el.buttons.append(button("tournament.withdraw", "tournament-withdraw", () => post("withdraw"), "secondary"));
    const game = currentGame(tour, me.username);
    if (game) {
      el.buttons.append(h("a", { href: `/game/${game}`, class: "button", id: "tournament-my-game" }, t("tournament.yourGame")));
    }
    if (playing) el.buttons.append(h("span", { class: "joined", id: "tournament-joined" }, t(mine.paused ? "tournament.paused" : "tournament.youPlay")));
  }

  function askPassword() {
    const input = h("input", { type: "password", id: "tournament-join-password", autocomplete: "off", "aria-label": t("tournament.password"), placeholder: t("tournament.password") });
    const ok = h("button", { type: "submit" }, t("tournament.join"));
    fill(el.password, input, ok, h("button", { type: "button", class: "secondary", onClick: () => (el.password.hidden = true) }, t("lobby.cancel")));
    el.password.onsubmit = (e) => {
      e.preventDefault();
      act(ok, async () => {
        await post("join", { password: input.value });
        el.password.hidden = true;
        toast(t("tournament.joined"));
      });
    };
    el.password.hidden = false;
    input.focus();
  }

  return {
    unmount() {
      socket.close();
      clocks.stop();
      standings.stop();
    },
  };
}
