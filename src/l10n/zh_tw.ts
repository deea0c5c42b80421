/**
 * Traditional Chinese (zh-TW) texts; official strings from phira-mp's zh-TW.ftl.
 *
 * @module
 */

import type { MessageKey } from "./en_us.ts";

/** zh-TW message templates. */
export const ZH_TW = {
  "create-id-occupied": "房間 ID 已被佔用",
  "join-game-ongoing": "遊戲正在進行中",
  "join-room-full": "房間已滿",
  "join-room-locked": "房間已鎖定",
  "join-cant-monitor": "權限不足，不能旁觀房間",
  "start-no-chart-selected": "還沒有選擇譜面",
  "no-room": "你不在房間中",
  "invalid-state": "目前狀態無法執行此操作",
  "only-host": "只有房主可以執行此操作",
  "already-in-room": "你已經在房間中",
  "room-not-found": "房間不存在",
  "already-ready": "你已經準備好了",
  "not-ready": "你還沒有準備",
  "invalid-record": "成績無效",
  "aborted": "你已放棄本局",
  "already-uploaded": "成績已上傳",
  "repeated-authenticate": "重複認證",
  "auth-failed": "取得使用者資訊失敗",
  "not-authenticated": "尚未認證",
  "invalid-session-command": "目前工作階段不能執行此命令",
  "chat-disabled": "本伺服器已停用聊天",
  "chat-too-long": "訊息過長（最多 {max} 個字元）",
  "record-fetch-failed": "無法取得成績 {id}：{reason}",
  "server-busy": "伺服器忙碌中，請稍後再試",
  "server-full": "伺服器已滿",
  "server-shutting-down": "伺服器正在關閉，稍後見！",
  "connection-replaced": "你的帳號已在其他連線登入",
  "auth-timeout": "認證逾時",
  "monitor-key-mismatch": "密鑰不符",
  "monitor-already-connected": "已有一個房間監視器連線",
  "game-monitor-must-monitor": "旁觀工作階段只能以旁觀者身分加入房間",
  "chart-fallback-name": "#{id}",
  "room-creation-disabled": "本伺服器已關閉建立房間",
  "server-room-limit": "伺服器房間數量已達上限",
  "kicked-by-admin": "你已被管理員移出伺服器{reason}",
  "removed-from-room": "你已被管理員移出房間 {room}",
  "room-closed-by-admin": "房間 {room} 已被管理員關閉",
  "auth-banned": "你已被本伺服器封鎖。原因：{reason}",
  "auth-banned-default": "你已被本伺服器封鎖。原因：違反伺服器規則",
  "broadcast-prefix": "[系統廣播] {message}",
} as const satisfies Record<MessageKey, string>;
