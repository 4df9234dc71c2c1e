import { expect, test } from "bun:test";
import { apiUrl } from "./healthcheck.ts";

test("the healthcheck asks the first plain HTTP port over loopback, else the first HTTPS one", () => {
  expect(apiUrl("80,443s")).toBe("http://127.0.0.1:80/api/info/login");
  expect(apiUrl("443s,8080")).toBe("http://127.0.0.1:8080/api/info/login");
  expect(apiUrl("443s")).toBe("https://127.0.0.1:443/api/info/login");
  expect(apiUrl("[::]:80o")).toBe("http://[::1]:80/api/info/login");
  expect(apiUrl("192.168.1.2:8080")).toBe("http://192.168.1.2:8080/api/info/login");
});
