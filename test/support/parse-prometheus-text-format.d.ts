/** The independent Prometheus text-format parser the metrics test reads `/metrics` with (it ships no types). */
declare module 'parse-prometheus-text-format' {
  type Sample = { value?: string; labels?: Record<string, string>; count?: string; sum?: string; buckets?: Record<string, string> };
  export default function parsePrometheusTextFormat(text: string): { name: string; help: string; type: string; metrics: Sample[] }[];
}
