import { render } from "preact";
import "uplot/dist/uPlot.min.css";
import "./style.css";
import { App } from "./app.tsx";
import { language, preferred, setLanguage } from "./locale.ts";
import { useStore } from "./store.ts";

// a new language draws the page anew: every text is read again through t()
function Root() {
  return <App key={useStore(language)} />;
}

// the first picture waits for the language's catalogue (one small file), so no English flashes by;
// without it the page speaks English
void setLanguage(preferred(), false)
  .catch(() => undefined)
  .finally(() => render(<Root />, document.getElementById("app")!));
