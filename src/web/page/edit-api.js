// The editor's requests to the map server (the contract of issue #40): every one carries the
// page's token as a Bearer header, JSON goes as application/json and a plan image as its own type
// (both force a CORS preflight the server never answers, so no other site can post here).

const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? undefined

function headers(type) {
  const h = {}
  if (token !== undefined) h.Authorization = `Bearer ${token}`
  if (type !== undefined) h['Content-Type'] = type
  return h
}

/** The answer's JSON body, or `{ code, message }` made up when the body is not JSON. */
async function body(res) {
  try {
    return await res.json()
  } catch {
    return { code: `http_${res.status}`, message: `the server answered ${res.status} ${res.statusText}` }
  }
}

/** `{ status, body }` of a request; a network failure is status 0 with a message. */
async function request(method, path, type, payload) {
  try {
    const res = await fetch(path, { method, headers: headers(type), body: payload, cache: 'no-store' })
    return { status: res.status, body: await body(res) }
  } catch (e) {
    return { status: 0, body: { code: 'network', message: `the map server did not answer (${e.message}); try again` } }
  }
}

/** GET /api/site: 200 `{ version, site, problems, editable, file }` in edit mode, else 404. */
export function readSite() {
  return request('GET', 'api/site')
}

/** PUT /api/site with the version this page has. */
export function saveSite(version, site) {
  return request('PUT', 'api/site', 'application/json', JSON.stringify({ version, site }))
}

/** PUT /api/plan: the image file's bytes, typed as the browser knows the file. */
export function uploadPlan(file, floor) {
  const path = floor === undefined ? 'api/plan' : `api/plan?floor=${encodeURIComponent(floor)}`
  return request('PUT', path, file.type, file)
}

/** POST /api/teach: teach `room` with the tag `beacon` for `seconds`. */
export function teachRoom(room, beacon, seconds = 30) {
  return request('POST', 'api/teach', 'application/json', JSON.stringify({ room, beacon, seconds }))
}
