// Reading a map's Server-Sent Events over real HTTP, shared by the map server's tests and the
// fleet's live-site test.
import { request } from 'node:http'

/** Reads an event stream until `until` holds of what it sent; resolves with everything it sent. */
export function readStream(url: string, until: (text: string) => boolean, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    const req = request(url, (res) => {
      res.setEncoding('utf8').on('data', (d: string) => {
        text += d
        if (until(text)) {
          req.destroy()
          resolve(text)
        }
      })
    })
    const timer = setTimeout(() => {
      req.destroy()
      reject(new Error(`the stream did not deliver in time; got ${text.length} characters`))
    }, timeoutMs)
    req.on('close', () => clearTimeout(timer))
    req.on('error', (e) => {
      if (!until(text)) reject(e)
    })
    req.end()
  })
}
