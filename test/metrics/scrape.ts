// Reading what a metrics server answers: one GET over real HTTP, and the value of one series
// in Prometheus exposition text.
import { request } from 'node:http'

/** A finished GET. */
export interface Answer {
  status: number
  type: string
  body: string
}

/** GETs `url` (with `Authorization: Bearer <token>` when given). */
export function get(url: string, token?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (d: string) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** The value of the series `name{labels}` exactly as written (labels in their order), or undefined. */
export function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1))
  }
  return undefined
}
