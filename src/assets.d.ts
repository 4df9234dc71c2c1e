// File imports (`with { type: "file" }`) resolve to a path Bun can open, also inside a compiled binary.
declare module "*.js" {
  const path: string;
  export default path;
}
// Text imports (`with { type: "text" }`): the file's content, embedded in the compiled binary.
declare module "*.service" {
  const text: string;
  export default text;
}
