/**
 * @module contracts/content-part
 * One part of a tool result as a model is shown it (text or an image): the
 * shape the model contract (`Message.parts`) and `ToolContent` share.
 */

/** One part of a tool result shown to a model. `data` is base64. */
export type ContentPart =
  { readonly type: "text"; readonly text: string } | { readonly type: "image"; readonly data: string; readonly mimeType: string };
