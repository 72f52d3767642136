/**
 * @module wire/media-type
 * The media type of a `Content-Type` header, compared as HTTP means it
 * (RFC 9110 §8.3.1): the `type/subtype` before any parameters, trimmed and
 * case-insensitive; never a substring search of the raw header.
 */

/**
 * The lowercased `type/subtype` of a raw `Content-Type` value, or `undefined`
 * when the header is absent, empty, or ambiguous (two values joined by a
 * comma, as Node joins a repeated header).
 */
export function mediaTypeOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const semi = header.indexOf(";");
  const essence = (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase();
  if (essence === "" || essence.includes(",") || (semi >= 0 && header.slice(semi).includes(","))) return undefined;
  return essence;
}

/** True when a raw `Content-Type` value is `application/json` (parameters such as `charset` allowed). */
export function isJsonContentType(header: string | undefined): boolean {
  return header === "application/json" || mediaTypeOf(header) === "application/json";
}
