/** A wording cue: one pattern for English, one for Chinese; a text matches when either does. */
export interface Cue {
  readonly en: RegExp;
  readonly zh: RegExp;
}

/** True when `text` carries the cue in English or in Chinese. */
export function hasCue(text: string, cue: Cue): boolean {
  return cue.en.test(text) || cue.zh.test(text);
}

/** "When to use it": the situation the tool is for (checklist item 2). */
export const USAGE_CUE: Cue = {
  en: /\b(?:use (?:it|this|them)\b|use (?:when|for|to|before|after|instead)\b|useful (?:for|when)|(?:is )?(?:intended|meant|designed|suitable|good) for|call (?:it|this) (?:to|when|before|after|first)|when (?:you|the user|a user|the model) (?:need|want|ha(?:s|ve)|know)|(?:use|call|try) (?:it )?(?:first|instead|before|after)|prefer (?:it|this)|in order to)/i,
  zh: /适用于|适合|用于|用来|可用它|可以用它|用它来|当[^。！？；]{0,20}时|需要[^。！？；]{0,16}时|之前调用|之后调用|先调用|再调用|改用|请用|请使用/,
};

/** "Counter-examples and edges": the common misuse, a limit, what it does not do (checklist item 5). */
export const AVOID_CUE: Cue = {
  en: /\b(?:do not|don't|never|not (?:for|suitable|meant|intended|designed|supported|recursive|included)|cannot|can't|does not|doesn't|won't|will not|is not|are not|isn't|aren't|only (?:works|supports|for|returns|accepts|reads|searches|lists|handles|within|when|if)|instead of|avoid|unsupported|fails? (?:if|when)|(?:are|is) (?:refused|rejected|skipped|ignored|truncated)|at most|no more than|up to \d|must not|limited to|beware|caution|note that)\b/i,
  zh: /不要|别用|不能|不可|不支持|不适用|不会|不用于|不包括|仅|只能|只支持|只返回|只读|避免|勿|禁止|而不是|最多|至多|不超过|会被拒绝|会被跳过|注意/,
};

/** "Side effects: what it changes" (checklist item 4). */
export const CHANGE_CUE: Cue = {
  en: /\b(?:overwrit(?:e|es|ten|ing)|creat(?:e|es|ed|ing)|delet(?:e|es|ed|ing)|remov(?:e|es|ed|ing)|modif(?:y|ies|ied)|chang(?:e|es|ed|ing)|writ(?:e|es|ten|ing)|updat(?:e|es|ed|ing)|replac(?:e|es|ed|ing)|append(?:s|ed|ing)?|sends?|sent|runs?|execut(?:e|es|ed|ing)|spawn(?:s|ed)?|starts?|stops?|kills?|installs?|side effects?|persist(?:s|ed)?|(?:is|are) lost|cannot be undone|irreversible|permanent(?:ly)?|charges?|posts?|publish(?:es|ed)?|mov(?:e|es|ed))\b/i,
  zh: /修改|写入|覆盖|创建|新建|删除|移除|更新|发送|执行|运行|启动|停止|安装|副作用|不可恢复|不可撤销|无法撤销|追加|替换|丢失|扣费|发布|移动/,
};

/** "Side effects: whether repeating the call is safe" (checklist item 4). */
export const REPEAT_CUE: Cue = {
  en: /\b(?:idempotent|repeat(?:s|ed|ing)?|retr(?:y|ies|ying)|safe to (?:call|run|retry|repeat)|again|twice|more than once|same (?:result|file|call|arguments|effect|outcome)|duplicates?|each call)\b/i,
  zh: /幂等|重复|再次调用|多次调用|结果一致|重试|每次调用|再调用一次/,
};

/** A path parameter that says what it is relative to (checklist item 3). */
export const PATH_BASE_CUE: Cue = {
  en: /\b(?:relative|absolute|root|under|inside|within|from the (?:current|working)|working directory|cwd|workspace|repository|repo|project|home directory|full path)\b/i,
  zh: /相对|绝对|根目录|工作区|当前目录|工作目录|仓库|项目|完整路径/,
};

/** A number parameter that says its unit or range (checklist item 3). */
export const NUMBER_UNIT_CUE: Cue = {
  en: /(?:\b\d+(?:\.\d+)?\s*(?:to|-|–|and|through)\s*-?\d|\b[a-z]{1,4}\/[a-z]{1,4}(?:\^?\d)?\b|\bin (?:m|s|g|l|h|v|w|a|j|n|k)\b|[,(]\s*(?:m|s|g|l|h|kg|km|cm|mm|ms|m\/s|n|j|w|v|a|k)\s*[.)]?\s*$|\b(?:in|measured in|expressed in|units? of) (?!the\b|a\b|an\b|which\b|this\b|that\b|order\b|case\b)[a-z]+s\b|\b(?:number of|how many|count of|beats|bpm|between|range|at (?:most|least)|max(?:imum)?|min(?:imum)?|positive|non-negative|negative|greater than|less than|up to|no more than|upper|lower|bound|limit|(?:milli|micro|nano)?seconds?|ms|minutes?|hours?|days?|weeks?|months?|years?|bytes?|kb|mb|gb|kilobytes?|megabytes?|pixels?|px|percent(?:age)?|meters?|metres?|km|kilometers?|miles?|feet|inches?|cm|mm|degrees?|celsius|fahrenheit|kelvin|usd|eur|dollars?|cents?|lines?|characters?|chars|words?|tokens?|items?|results?|entries|records|rows|pages?|units?|[01]-based|zero-based|one-based|index(?:ed)?|count(?:ing)? from|atm|atmospheres?|bar|psi|k?pa|mol(?:es)?|ohms?|amperes?|teslas?|coulombs?|kg|(?:kilo|milli)?grams?|kilos?|ounces?|oz|tons?|tonnes?|joules?|watts?|volts?|amps?|newtons?|pascals?|hertz|calories|kcal|pounds?|lbs?|liters?|litres?|ml|hz|mph|kph|per|rate|ratio|fraction|probability|decimal|latitude|longitude|timestamp|epoch|year)\b|%)/i,
  // Single characters such as 度, 天 or 行 count only after a number: alone they are inside 高度, 天气, 执行.
  zh: /\d\s*(?:秒|分钟|小时|天|周|个月|年|字节|像素|米|公里|度|元|行|字符|个|条|页|克|千克|升)|秒|分钟|小时|字节|千字节|兆字节|像素|百分比|百分之|厘米|毫米|公里|千米|摄氏度|华氏度|开尔文|千克|公斤|毫升|人民币|美元|字符数|行数|条数|页数|天数|范围|之间|最多|最少|不超过|不少于|从\s*[01]\s*开始|上限|下限|正整数|非负|单位/,
};

/** A measurable quantity, for which the unit matters: a length, a duration, a mass, a price. */
export const MEASURE_CUE: Cue = {
  en: /\b(?:length|width|height|depth|distance|radius|diameter|perimeter|circumference|duration|time|delay|timeout|interval|period|wait|weight|mass|speed|velocity|acceleration|temperature|pressure|area|volume|frequency|energy|power|voltage|charge|force|density|permeability|altitude|elevation|capacity|quantity|dose|dosage|memory|bandwidth|latency|elapsed|ttl|expiry|expiration)s?\b/i,
  zh: /长度|宽度|高度|深度|距离|半径|直径|周长|时长|时间|延迟|超时|间隔|周期|等待|重量|质量|大小|速度|加速度|温度|压力|面积|体积|频率|能量|功率|电流|电压|密度|海拔|容量|数量|剂量|内存|带宽|多久|多长/,
};

/** A length: where every measured parameter of a tool is one, the unit cancels out (an area from base and height). */
export const LENGTH_CUE: Cue = {
  en: /\b(?:length|width|height|depth|distance|radius|diameter|perimeter|circumference|side|base|breadth|altitude|elevation)s?\d*\b/i,
  zh: /长度|宽度|高度|深度|距离|半径|直径|周长|边长|底边/,
};

/** A number that is abstract (an operand, a coefficient, a coordinate), for which no unit exists. */
export const ABSTRACT_NUMBER_CUE: Cue = {
  en: /\b(?:numbers?|integers?|coefficients?|coordinates?|operands?|exponents?|ratio|factor|scalar|dividend|divisor|numerator|denominator|modulus)\b/i,
  zh: /数字|整数|系数|坐标|操作数|指数|比率|因子|除数|被除数|分子|分母/,
};

/** Wording that says the tool writes or deletes, at the start of the first sentence (checklist item 4). */
export const WRITE_VERB_START: Cue = {
  en: /^(?:(?:this (?:tool|function|method)|it|the tool|function to|tool to|used to|lets you|allows you to)\s+)?(?:delet(?:e|es|ing)|remov(?:e|es|ing)|writ(?:e|es|ing)|overwrit(?:e|es|ing)|creat(?:e|es|ing)|updat(?:e|es|ing)|modif(?:y|ies|ying)|insert(?:s|ing)?|drop(?:s|ping)?|destroy(?:s|ing)?|eras(?:e|es|ing)|send(?:s|ing)?|post(?:s|ing)?|upload(?:s|ing)?|install(?:s|ing)?|kill(?:s|ing)?|execut(?:e|es|ing)|run(?:s|ning)?)\b/i,
  zh: /^(?:该工具|此工具|本工具|这个工具|该函数|此函数|用于|可以)?(?:删除|移除|写入|覆盖|创建|新建|更新|修改|插入|销毁|清空|发送|上传|安装|执行|运行)/,
};

/** One kind of promotional or coercive wording, with what to call it in a message. */
export interface ManipulationCue extends Cue {
  readonly kind: string;
}

/** Wording that skews which tool a model picks (Faghih et al. 2025: assertive cues, claims, name-dropping). */
export const MANIPULATION_CUES: readonly ManipulationCue[] = [
  {
    kind: 'an assertive cue',
    en: /\b(?:always (?:use|call|prefer|choose|pick)|you (?:must|should always) (?:use|call)|must (?:always )?(?:be used|use this)|use this tool (?:first|whenever|for (?:all|every|any))|(?:do not|don't|never) use (?:any )?other tools?|instead of (?:any|all) other tools?|prefer this (?:tool|function) over)\b/i,
    zh: /(?:始终|总是|一律|务必|必须|一定要)(?:优先)?(?:使用|调用|选择)|优先(?:使用|调用|选择)(?:本|此|该|这个)|不要使用其他工具|不要调用其他工具/,
  },
  {
    kind: 'a superlative claim about itself',
    // Only claims about the tool itself: "the greatest common divisor" or "the most popular
    // exhibitions" describe what comes back, and are not flagged.
    en: /\b(?:(?:the|a) (?:best|greatest|finest|ultimate|perfect|most (?:reliable|accurate|powerful|advanced|trusted|popular|complete|comprehensive|efficient|capable))|#\s?1|number one|world[- ]class|industry[- ]leading|state[- ]of[- ]the[- ]art|best[- ]in[- ]class|unmatched|unrivall?ed|superior)\s+(?:[\w-]+\s+){0,2}?(?:tool|function|api|service|option|choice|way|solution|method|source|provider|utility)s?\b|\b(?:this|our) (?:tool|function|api|service)\b[^.!?]{0,40}\b(?:the best|the most (?:reliable|accurate|powerful|advanced|trusted)|better than|superior to|unmatched|#\s?1|number one)\b/i,
    zh: /(?:最好|最佳|最强|最可靠|最准确|最权威|首选|业界领先|无与伦比)的?(?:工具|函数|选择|方案|接口|服务)|(?:本|此|该|这个)(?:工具|函数)[^。！？]{0,16}(?:最好|最佳|最强|最可靠|最准确|第一|首选|优于其他|遥遥领先)/,
  },
  {
    kind: 'an endorsement or usage claim',
    en: /\b(?:trusted by|used by (?:over |more than )?[\d,.]+|recommended by|endorsed by|loved by|chosen by|(?:millions|thousands) of (?:users|developers|companies)|[\d.]+\s?% (?:accurate|accuracy|success|reliable|of (?:users|developers)))\b/i,
    zh: /(?:数百万|数千|上万|百万|千万|[\d,.]+\s*万?)(?:名|位|个)?(?:用户|开发者|企业)(?:都在|信赖|使用|选择)|受到[^。]{0,10}信赖|准确率(?:高达|达)?\s*[\d.]+\s*%|成功率(?:高达|达)?\s*[\d.]+\s*%/,
  },
  {
    kind: 'an all-caps imperative',
    en: /\b(?:ALWAYS|NEVER|MUST|IMPORTANT|CRITICAL|MANDATORY)\b/,
    zh: /(?!)/,
  },
];
