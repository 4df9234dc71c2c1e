export { ConfigStore, ConfigError, envLeaf } from "./store.ts";
export { schema, LEAVES, getIn, setIn, type Config, type LeafEntry } from "./schema.ts";
export { coerce, isLeaf, MAX_ITEMS, MAX_TEXT, type AnyLeaf } from "./leaf.ts";
export { parseWebPort, parseCnameRecord, CLIENT_ID } from "./validators.ts";
export { withPasswordFile } from "./password-file.ts";
export { selfUpstreams } from "./self-upstream.ts";
