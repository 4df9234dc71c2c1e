export { ConfigStore, ConfigError, envLeaf, type ConfigProblem, type ConfigOptions } from "./store.ts";
export { schema, LEAVES, LEAF_BY_PATH, defaults, getIn, setIn, BLOCKING_MODES, LISTENING_MODES, type Config, type LeafEntry } from "./schema.ts";
export { coerce, isLeaf, type AnyLeaf, type Leaf } from "./leaf.ts";
export { parseWebPort, parseCnameRecord, type WebPort } from "./validators.ts";
