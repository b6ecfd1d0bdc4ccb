// /simul/{id}: one simultaneous exhibition, live. Its terms and host; while it waits for its start, the
// players who asked to play and those the host accepted (a player asks or withdraws; the host accepts,
// puts back, removes, starts or cancels); once started, a small board for every game (simul-widgets.js)
// and the host's score. As on lidraughts, a player whose game starts is taken to it.
//
// Everything shown is the server's: the simul's WebSocket (/ws/simuls/{id}) sends the whole simul on
// connecting and after every change (`simul`), and each game's position after every move (`board`).

import { api, LiveSocket, session } from "./api.js";
import { fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { loginHref, navigate } from "./router.js";
import { hostToMove, SimulBoards, simulTerms } from "./simul-widgets.js";
import { act, card, playerLink } from "./widgets.js";

export async function mount(container, { id }) {
  const me = session.user && !session.user.anonymous ? session.user.username : null;
  const boards = new SimulBoards();
  let simul = null;
  let heard = false; // the socket has sent the simul: newer than any answer to the first request

  const el = {
    title: h("h1", { id: "simul-name", translate: "no" }), // a name its host chose
    terms: h("p", { class: "terms-line", id: "simul-terms" }),
    host: h("p", { id: "simul-host" }),
    status: h("p", { class: "simul-status", id: "simul-status" }),
    text: h("p", { class: "simul-text", id: "simul-text", translate: "no", hidden: true }),
    score: h("p", { class: "simul-score", id: "simul-score", hidden: true }),
    turns: h("p", { class: "simul-turns", id: "simul-your-turn", "aria-live": "polite" }),
    buttons: h("div", { class: "controls", id: "simul-controls" }),
    applicants: h("ul", { class: "simul-players", id: "simul-applicants" }),
    accepted: h("ul", { class: "simul-players", id: "simul-accepted" }),
  };
  const playersCard = h(
    "section",
    { class: "card", id: "simul-players" },
    h("h2", {}, t("simul.applicants")),
    el.applicants,
    h("h2", {}, t("simul.acceptedTitle")),
    el.accepted
  );
  const gamesCard = card("simul-games", t("simul.games"), el.turns, boards.el);
  gamesCard.hidden = true;
  const page = h(
    "div",
    { class: "simul-page", dataset: { simulId: id } },
    h("div", { class: "column" }, h("section", { class: "card", id: "simul-head" }, el.title, el.terms, el.host, el.status, el.score, el.text, el.buttons)),
    h("div", { class: "column" }, playersCard, gamesCard)
  );
  container.append(page);

  // -- the live channel ---------------------------------------------------------------------------------
  const socket = new LiveSocket(`/ws/simuls/${id}`, onMessage, (connected) => page.classList.toggle("offline", !connected));

  function onMessage(message) {
    if (message.type === "simul") {
      heard = true;
      apply(message.simul);
    } else if (message.type === "board" && simul) {
      boards.board(message.board);
      drawTurns();
    } else if (message.type === "error" && !simul) notFound();
  }

  function notFound() {
    boards.stop();
    fill(container, h("section", { class: "card" }, h("h1", {}, t("simul.notFound")), h("a", { href: "/simuls" }, t("simul.nav"))));
  }

  api("GET", `/api/simuls/${id}`)
    .then((answer) => heard || apply(answer))
    .catch((e) => {
      if (e.status !== 404) return console.warn("simul:", e);
      socket.close();
      notFound();
    });

  function mine(s) {
    return (me && s.players.find((p) => p.username === me)) || null;
  }

  function apply(next) {
    if (!next || next.id !== id) return;
    // The start of the simul takes each player to their game, as lidraughts does.
    const game = mine(next)?.game;
    if (simul && simul.status === "created" && next.status === "started" && game) {
      navigate(`/game/${game}`);
      return;
    }
    simul = next;
    page.dataset.status = simul.status;
    page.classList.toggle("hosting", isHost());
    document.title = `Shashki — ${simul.name}`;
    el.title.textContent = simul.name;
    el.terms.textContent = simulTerms(simul);
    fill(el.host, t("simul.hostLabel"), " ", playerLink(simul.host));
    el.status.textContent = [t(`simul.status.${simul.status}`), t("simul.playersCount", { count: simul.players_count ?? simul.players.length })].join(" · ");
    el.text.textContent = simul.text || "";
    el.text.hidden = !simul.text;
    drawScore();
    drawButtons();
    const waiting = simul.status === "created";
    playersCard.hidden = !waiting;
    gamesCard.hidden = waiting || simul.status === "cancelled";
    if (waiting) drawPlayers();
    else boards.update(simul, me);
    drawTurns();
  }

  function isHost() {
    return !!me && !!simul && simul.host.username === me;
  }

  function drawScore() {
    const score = simul.score;
    el.score.hidden = !score || simul.status === "created" || simul.status === "cancelled";
    if (el.score.hidden) return;
    el.score.textContent = t("simul.score", { won: score.won, drawn: score.drawn, lost: score.lost, playing: score.playing });
    Object.assign(el.score.dataset, { won: String(score.won), drawn: String(score.drawn), lost: String(score.lost), playing: String(score.playing) });
  }

  /** The host's boards to move on, counted (they are marked and shown first in the grid). */
  function drawTurns() {
    const count = isHost() && simul.status === "started" ? simul.players.filter(hostToMove).length : 0;
    el.turns.textContent = count ? t("simul.yourMoveCount", { count }) : "";
    el.turns.hidden = !count;
  }

  // -- asking to play, and the host's answers ---------------------------------------------------------------
  async function post(action) {
    apply(await api("POST", `/api/simuls/${id}/${action}`));
  }

  function button(key, idName, action, cls = "") {
    return h("button", { id: idName, class: cls, onClick: (e) => act(e.currentTarget, action) }, t(key));
  }

  function drawButtons() {
    el.buttons.replaceChildren();
    const entry = mine(simul);
    if (simul.status === "started" && entry?.game) {
      el.buttons.append(h("a", { href: `/game/${entry.game}`, class: "button", id: "simul-my-game" }, t("simul.yourGame")));
    }
    if (simul.status !== "created") return;
    if (!me) {
      el.buttons.append(h("a", { href: loginHref(), class: "button", id: "simul-login" }, t("simul.loginToJoin")));
    } else if (isHost()) {
      el.buttons.append(
        button("simul.start", "simul-start", () => post("start")),
        button("simul.cancel", "simul-cancel", () => confirm(t("simul.confirmCancel")) && post("cancel"), "secondary")
      );
    } else if (entry) {
      el.buttons.append(
        h("span", { class: "joined", id: "simul-joined" }, t(entry.accepted ? "simul.youAreAccepted" : "simul.youAsked")),
        button("simul.withdraw", "simul-withdraw", () => post("withdraw"), "secondary")
      );
    } else {
      el.buttons.append(button("simul.join", "simul-join", () => post("join")));
    }
  }

  function drawPlayers() {
    const host = isHost();
    const line = (p) => {
      const name = encodeURIComponent(p.username);
      const answer = (key, label, cls, action, secondary = true) =>
        h(
          "button",
          { class: `${cls}${secondary ? " secondary" : ""}`, "aria-label": label, onClick: (e) => act(e.currentTarget, () => post(`${action}/${name}`)) },
          t(key)
        );
      const who = { name: p.username };
      const buttons = host
        ? h(
            "span",
            { class: "answers" },
            p.accepted
              ? answer("simul.unaccept", t("simul.unacceptPlayer", who), "simul-unaccept", "unaccept")
              : answer("simul.accept", t("simul.acceptPlayer", who), "simul-accept", "accept", false),
            answer("simul.remove", t("simul.removePlayer", who), "simul-remove", "remove")
          )
        : null;
      return h("li", { class: `simul-player${p.accepted ? " accepted" : ""}`, dataset: { user: p.username } }, playerLink(p), buttons);
    };
    const waiting = simul.players.filter((p) => !p.accepted);
    const accepted = simul.players.filter((p) => p.accepted);
    fill(el.applicants, waiting.length ? waiting.map(line) : h("li", { class: "muted empty" }, t("simul.noApplicants")));
    fill(el.accepted, accepted.length ? accepted.map(line) : h("li", { class: "muted empty" }, t(host ? "simul.acceptSome" : "simul.noneAccepted")));
  }

  return {
    unmount() {
      socket.close();
      boards.stop();
    },
  };
}
