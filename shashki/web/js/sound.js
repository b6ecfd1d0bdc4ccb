// The game's sounds: a move, a capture, the low-time warning and the clock's tick, a game's start and end.
// Each is a tiny WAV made here (decaying tones, one after another), played through WebAudio: no sound
// file is shipped. The player's choice (on or muted) is remembered in localStorage.

const STORAGE_KEY = "shashki.sound";
let context = null;
let buffers = null;

// Each sound as its tones: [frequency (Hz), start (s), length (s)]. Wooden knocks for the moves, a
// higher double beep when time runs low, a short click each second after that, a rising pair of notes
// when a game starts and a falling pair when it ends.
const SOUNDS = {
  move: [[520, 0, 0.08]],
  capture: [[330, 0, 0.12]],
  low: [
    [880, 0, 0.09],
    [880, 0.14, 0.09],
  ],
  tick: [[1400, 0, 0.03]],
  start: [
    [523, 0, 0.14],
    [784, 0.12, 0.2],
  ],
  end: [
    [784, 0, 0.14],
    [523, 0.12, 0.25],
  ],
};

export function soundOn() {
  return localStorage.getItem(STORAGE_KEY) !== "off";
}

export function setSound(on) {
  localStorage.setItem(STORAGE_KEY, on ? "on" : "off");
}

/** A mono 16-bit PCM WAV file of decaying tones [[frequency, start, length], …]: the bytes, header included. */
export function makeTones(tones, rate = 22050) {
  const seconds = Math.max(...tones.map(([, start, length]) => start + length));
  const samples = Math.floor(seconds * rate);
  const data = new DataView(new ArrayBuffer(44 + samples * 2));
  const text = (offset, value) => [...value].forEach((c, i) => data.setUint8(offset + i, c.charCodeAt(0)));
  text(0, "RIFF");
  data.setUint32(4, 36 + samples * 2, true);
  text(8, "WAVE");
  text(12, "fmt ");
  data.setUint32(16, 16, true); // size of the fmt chunk
  data.setUint16(20, 1, true); // PCM
  data.setUint16(22, 1, true); // mono
  data.setUint32(24, rate, true);
  data.setUint32(28, rate * 2, true); // bytes per second
  data.setUint16(32, 2, true); // bytes per frame
  data.setUint16(34, 16, true); // bits per sample
  text(36, "data");
  data.setUint32(40, samples * 2, true);
  for (let i = 0; i < samples; i++) {
    const time = i / rate;
    let value = 0;
    for (const [frequency, start, length] of tones) {
      const t = time - start;
      if (t < 0 || t > length) continue;
      const envelope = Math.exp((-t * 6) / length);
      value += (Math.sin(2 * Math.PI * frequency * t) + 0.3 * Math.sin(2 * Math.PI * frequency * 2.7 * t)) * envelope;
    }
    data.setInt16(44 + i * 2, Math.max(-1, Math.min(1, value * 0.6)) * 32767, true);
  }
  return data.buffer;
}

/** One decaying tone (kept for the callers of the first version of this module). */
export function makeWav(frequency, seconds = 0.08, rate = 22050) {
  return makeTones([[frequency, 0, seconds]], rate);
}

async function ready() {
  if (!context) {
    const AudioContext = window.AudioContext || window.webkitAudioContext;
    if (!AudioContext) return false;
    context = new AudioContext();
    buffers = {};
    for (const [kind, tones] of Object.entries(SOUNDS)) buffers[kind] = await context.decodeAudioData(makeTones(tones));
  }
  if (context.state === "suspended") await context.resume().catch(() => {});
  return context.state === "running";
}

/**
 * Play one of the sounds ("move", "capture", "low", "tick", "start", "end") if the player wants sound.
 * The last one asked for is written on the page (`<html data-sound>`), so that what the page meant to
 * play can be seen even where the browser has no audio.
 */
export async function playSound(kind = "move") {
  if (!soundOn()) return;
  if (!(kind in SOUNDS)) kind = "move";
  document.documentElement.dataset.sound = kind;
  document.documentElement.dataset.sounds = String(Number(document.documentElement.dataset.sounds || 0) + 1);
  try {
    if (!(await ready())) return;
    const source = context.createBufferSource();
    source.buffer = buffers[kind];
    source.connect(context.destination);
    source.start();
  } catch {
    /* sound is a nicety: never let it break the game */
  }
}

/** The sound of a move ("move" or "capture"): the name the game page has used from the start. */
export function playMoveSound(kind = "move") {
  return playSound(kind);
}
