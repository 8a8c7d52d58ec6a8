// The time slider of a recorded fleet run: drag to any moment, or play it at a chosen speed.
const STEP_MS = 250

function $(id) {
  return document.getElementById(id)
}

function when(t) {
  return t > 1e11 ? new Date(t).toLocaleString() : `${(t / 1000).toFixed(0)} s`
}

let ready = false

/** Shows the slider for `span` ({ start, end, at }); `show(at)` loads a moment. */
export function setupReplay(span, show) {
  const bar = $('replay')
  const scrub = $('replay-scrub')
  const play = $('replay-play')
  const label = $('replay-time')
  bar.hidden = false
  scrub.min = String(span.start)
  scrub.max = String(span.end)
  scrub.value = String(span.at)
  label.textContent = when(span.at)
  if (ready) return
  ready = true
  let timer
  let busy = false
  const go = async (at) => {
    label.textContent = when(at)
    // One request at a time: a fast drag skips moments rather than queueing them.
    if (busy) return
    busy = true
    try {
      await show(at)
    } finally {
      busy = false
    }
  }
  scrub.addEventListener('input', () => go(Number(scrub.value)))
  const stop = () => {
    clearInterval(timer)
    timer = undefined
    play.textContent = '▶'
    play.setAttribute('aria-label', 'play')
  }
  play.addEventListener('click', () => {
    if (timer !== undefined) return stop()
    play.textContent = '❚❚'
    play.setAttribute('aria-label', 'pause')
    timer = setInterval(() => {
      const next = Number(scrub.value) + STEP_MS * Number($('replay-speed').value)
      if (next >= Number(scrub.max)) {
        scrub.value = scrub.max
        stop()
      } else scrub.value = String(next)
      go(Number(scrub.value))
    }, STEP_MS)
  })
}
