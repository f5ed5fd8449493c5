// prom-client's parts, each by its own file: its index also loads the default metrics (and OpenTelemetry
// with them), the cluster aggregator and the push gateway, which the relay never uses — about a fifth of
// a relay's start. The types are the index's own.
declare module "prom-client/lib/registry" {
  import { Registry } from "prom-client";
  export default Registry;
}
declare module "prom-client/lib/counter" {
  import { Counter } from "prom-client";
  export default Counter;
}
declare module "prom-client/lib/gauge" {
  import { Gauge } from "prom-client";
  export default Gauge;
}
declare module "prom-client/lib/histogram" {
  import { Histogram } from "prom-client";
  export default Histogram;
}
