// The optional move sound: a tiny WAV made here (a short wooden "tock"), played through WebAudio.
// No sound file is shipped. The player's choice is remembered.

const STORAGE_KEY = "shashki.sound";
let context = null;
let buffers = null;

export function soundOn() {
  return localStorage.getItem(STORAGE_KEY) !== "off";
}

export function setSound(on) {
  localStorage.setItem(STORAGE_KEY, on ? "on" : "off");
}

/** A mono 16-bit PCM WAV file of a decaying tone: the bytes of the file, header included. */
export function makeWav(frequency, seconds = 0.08, rate = 22050) {
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
    const t = i / rate;
    const envelope = Math.exp(-t * 60);
    const tone = Math.sin(2 * Math.PI * frequency * t) + 0.3 * Math.sin(2 * Math.PI * frequency * 2.7 * t);
    data.setInt16(44 + i * 2, Math.max(-1, Math.min(1, tone * envelope * 0.6)) * 32767, true);
  }
  return data.buffer;
}

async function ready() {
  if (!context) {
    const AudioContext = window.AudioContext || window.webkitAudioContext;
    if (!AudioContext) return false;
    context = new AudioContext();
    buffers = {
      move: await context.decodeAudioData(makeWav(520)),
      capture: await context.decodeAudioData(makeWav(330, 0.12)),
    };
  }
  if (context.state === "suspended") await context.resume().catch(() => {});
  return context.state === "running";
}

/** Play the sound of a move ("move" or "capture") if the player wants sound. */
export async function playMoveSound(kind = "move") {
  if (!soundOn()) return;
  try {
    if (!(await ready())) return;
    const source = context.createBufferSource();
    source.buffer = buffers[kind] || buffers.move;
    source.connect(context.destination);
    source.start();
  } catch {
    /* sound is a nicety: never let it break the game */
  }
}
