/**
 * Simplified Chinese (zh-CN) texts; official strings from phira-mp's zh-CN.ftl.
 *
 * @module
 */

import type { MessageKey } from "./en_us.ts";

/** zh-CN message templates. */
export const ZH_CN = {
  "create-id-occupied": "房间 ID 已被占用",
  "join-game-ongoing": "游戏正在进行中",
  "join-room-full": "房间已满",
  "join-room-locked": "房间已锁定",
  "join-cant-monitor": "权限不足，不能旁观房间",
  "start-no-chart-selected": "还没有选择谱面",
  "no-room": "你不在房间中",
  "invalid-state": "当前状态无法执行此操作",
  "only-host": "只有房主可以执行此操作",
  "already-in-room": "你已经在房间中",
  "room-not-found": "房间不存在",
  "already-ready": "你已经准备好了",
  "not-ready": "你还没有准备",
  "invalid-record": "成绩无效",
  "aborted": "你已放弃本局",
  "already-uploaded": "成绩已上传",
  "repeated-authenticate": "重复认证",
  "auth-failed": "获取用户信息失败",
  "not-authenticated": "尚未认证",
  "invalid-session-command": "当前会话不能执行此命令",
  "chat-disabled": "本服务器已禁用聊天",
  "chat-too-long": "消息过长（最多 {max} 个字符）",
  "record-fetch-failed": "无法获取成绩 {id}：{reason}",
  "server-busy": "服务器繁忙，请稍后再试",
  "server-full": "服务器已满",
  "server-shutting-down": "服务器正在关闭，稍后见！",
  "connection-replaced": "你的账号已在其他连接登录",
  "auth-timeout": "认证超时",
  "monitor-key-mismatch": "密钥不匹配",
  "monitor-already-connected": "已有一个房间监视器连接",
  "game-monitor-must-monitor": "旁观会话只能以旁观者身份加入房间",
  "chart-fallback-name": "#{id}",
  "room-creation-disabled": "本服务器已关闭创建房间",
  "server-room-limit": "服务器房间数量已达上限",
  "kicked-by-admin": "你已被管理员移出服务器{reason}",
  "removed-from-room": "你已被管理员移出房间 {room}",
  "room-closed-by-admin": "房间 {room} 已被管理员关闭",
  "auth-banned": "你已被本服务器封禁。原因：{reason}",
  "auth-banned-default": "你已被本服务器封禁。原因：违反服务器规则",
  "broadcast-prefix": "[系统广播] {message}",
} as const satisfies Record<MessageKey, string>;
