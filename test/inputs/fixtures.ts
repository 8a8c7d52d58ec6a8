// Foreign-format payloads, quoted verbatim from the projects' own documentation and issues (each
// names its source); the few built by hand say so and follow the source they cite.

/**
 * OpenMQTTGateway, current docs, an iBeacon as published by default (decoded, no raw data).
 * Source: 1technophile/OpenMQTTGateway docs/use/ble.md (iBeacon example).
 */
export const OMG_IBEACON_DECODED = {
  topic: 'home/OpenMQTTGateway/BTtoMQTT/58782076BC24',
  payload: '{"id":"58:78:20:76:BC:24","mac_type":1,"rssi":-79,"brand":"GENERIC","model":"iBeacon","model_id":"IBEACON","mfid":"4c00","uuid":"1de4b189115e45f6b44e509352269977","major":0,"minor":0,"txpower":-66}',
}

/**
 * OpenMQTTGateway with `pubadvdata: true` (service data with OMG's `0x` uuid form).
 * Source: 1technophile/OpenMQTTGateway docs/use/ble.md, section "Publishing advertisement data"
 * (a later revision; topic as buildTopicFromId in main.cpp builds it).
 */
export const OMG_PUBADVDATA = {
  topic: 'home/OpenMQTTGateway/BTtoMQTT/112233445566',
  payload: '{"id":"11:22:33:44:55:66","mac_type":0,"adv_type":0,"name":"Qingping Motion & Light","rssi":-93,"servicedata":"88121122334455660201520f0126090403000000","servicedatauuid":"0xfdcd","brand":"Qingping","model":"Motion & Light","model_id":"CGPR1","lux":3,"batt":82}',
}

/**
 * OpenMQTTGateway, legacy docs: lower-case id, hasspresence distance, service data without uuid.
 * Source: 1technophile/OpenMQTTGateway docs/use/ble.md (older revision).
 */
export const OMG_LEGACY = {
  topic: 'home/OpenMQTTGateway/BTtoMQTT/45E174126E00',
  payload: '{"id":"45:e1:74:12:6e:00","rssi":-89,"distance":21.51847,"servicedata":"fe0000000000000000000000000000000000000000"}',
}

/**
 * Theengs Gateway, raw (undecoded) message, OMG-compatible; manufacturer data company id first,
 * little-endian (Apple 4c00). Source: theengs/gateway docs/use/use.md (pretty-printed there).
 */
export const THEENGS_RAW = {
  topic: 'home/TheengsGateway/BTtoMQTT/54945E9F64C4',
  payload: '{"id":"54:94:5E:9F:64:C4","mac_type":1,"manufacturerdata":"4c0010060319247bbc68","rssi":-74,"txpower":12}',
}

/**
 * Theengs Gateway, decoded; its `id` is a 3-byte doc artefact, so no usable address.
 * Source: theengs/gateway docs/use/use.md.
 */
export const THEENGS_DECODED_DOC_ID = {
  topic: 'home/TheengsGateway/BTtoMQTT/F35285',
  payload: '{"name":"F35285","id":"F3:52:85","rssi":-82,"brand":"BlueMaestro","model":"TempoDisc","model_id":"BM_V23","tempc":24.1,"tempf":75.38,"hum":104.7,"dp":24.8,"volt":2.56,"mfr":"Blue Maestro Limited"}',
}

/** OMG tracker timeout: no sighting. Source: OMG main/ZgatewayBT.cpp updateDevicesStatus (shape; hand-built). */
export const OMG_TRACKER_OFFLINE = { topic: 'home/OpenMQTTGateway/BTtoMQTT/58782076BC24', payload: '{"id":"58:78:20:76:BC:24","state":"offline"}' }

/** OMG availability: will `offline`, announcement `online`, retained. Source: OMG main/User_config.h (will_Topic "/LWT"). */
export const OMG_LWT = 'home/OpenMQTTGateway/LWT'

/**
 * ESPresense 4.x device report for an iBeacon. HAND-BUILT from BleFingerprint::fill's key order
 * (ESPresense/ESPresense src/BleFingerprint.cpp), not captured from a device; the id is the one
 * ESPresense issue #475 shows for MD 4c000215fda50693a4e24fb1afcfc6eb076478250064ffff1e.
 */
export const ESPR_IBEACON = {
  topic: 'espresense/devices/iBeacon:fda50693-a4e2-4fb1-afcf-c6eb07647825-100-65535/kitchen',
  payload: '{"mac":"df51fd4a4caf","id":"iBeacon:fda50693-a4e2-4fb1-afcf-c6eb07647825-100-65535","rssi@1m":-59,"rssi":-72.35,"rxAdj":0,"rssiVar":1.84,"distance":3.42,"var":0.21,"int":1032}',
}

/** ESPresense v1.5.2 report of a public MAC. Source: ESPresense/ESPresense issue #41 (verbatim). */
export const ESPR_LEGACY = {
  topic: 'espresense/devices/dc3056789abc/office',
  payload: '{"id":"dc3056789abc","name":"MH","rssi@1m":-59,"rssi":-75,"mac":"dc3056789abc","raw":2.87,"distance":2.26,"speed":0}',
}

/** ESPresense partial payload without id or mac. Source: ESPresense/ESPresense issue #182 (verbatim). */
export const ESPR_PARTIAL = { topic: 'espresense/devices/dc3056789abc/office', payload: '{"rssi@1m":-65,"rssi":-99,"raw":9.36,"distance":8.88,"speed":0.1}' }

/** ESPresense room status. Source: ESPresense/ESPresense.com configuration/mqtt.md (`espresense/rooms/study/status online`). */
export const ESPR_STATUS = { topic: 'espresense/rooms/study/status', payload: 'online' }
