// Share links: `#rules=…&scenario=…` holds each text as base64url of its UTF-8 bytes, without
// padding; `&run` also runs it; `&name=` (optional) is the rules file's name.

export function encodeText(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeText(code) {
  const base64 = code.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

// The parts of a share link's hash; a text that does not decode is left out.
export function parseHash(hash) {
  const out = {};
  for (const part of hash.replace(/^#/, "").split("&")) {
    if (!part) continue;
    const [key, ...rest] = part.split("=");
    const value = rest.join("=");
    try {
      if (key === "rules" || key === "scenario") out[key] = decodeText(value);
      else if (key === "name") out.name = decodeURIComponent(value).replace(/[\/\\]/g, "");
      else if (key === "run") out.run = true;
    } catch {
      // A damaged link opens what it can.
    }
  }
  return out;
}
