// Word lists for generated stores. Countries and subdivisions are real ISO 3166 codes.
export const ADJECTIVES = [
  'Classic',
  'Organic',
  'Vintage',
  'Modern',
  'Rustic',
  'Deluxe',
  'Everyday',
  'Premium',
  'Handmade',
  'Compact',
  'Cosy',
  'Bold',
];
export const NOUNS = [
  'Mug',
  'T-Shirt',
  'Backpack',
  'Candle',
  'Notebook',
  'Scarf',
  'Lamp',
  'Teapot',
  'Hoodie',
  'Wallet',
  'Sneakers',
  'Blanket',
  'Poster',
  'Bottle',
];
export const TYPES = ['Apparel', 'Home', 'Kitchen', 'Stationery', 'Accessories', 'Gift Card'];
export const VENDORS = ['Acme', 'Northwind', 'Globex', 'Initech', 'Umbrella', 'Hooli'];
export const TAGS = ['sale', 'new', 'eco', 'bestseller', 'limited', 'gift', 'summer', 'winter'];
export const SIZES = ['S', 'M', 'L', 'XL'];
export const COLORS: [string, string][] = [
  ['Red', '#d32f2f'],
  ['Blue', '#1976d2'],
  ['Green', '#388e3c'],
  ['Black', '#000000'],
];
export const MATERIALS = ['Cotton', 'Wool', 'Linen'];
export const TEXTAREA_PRESETS = ['Description', 'Care instructions', 'Size guide', 'Materials'];
export const FIRST_NAMES = [
  'Ada',
  'Grace',
  'Alan',
  'Linus',
  'Margaret',
  'Ken',
  'Barbara',
  'Dennis',
  'Frances',
  'Tim',
  'Radia',
  'Guido',
  'Anita',
  'John',
  'Hedy',
  'Edsger',
];
export const LAST_NAMES = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Torvalds',
  'Hamilton',
  'Thompson',
  'Liskov',
  'Ritchie',
  'Allen',
  'Berners-Lee',
  'Perlman',
  'van Rossum',
  'Borg',
  'Backus',
  'Lamarr',
  'Dijkstra',
];
export const STREETS = ['Main St', 'High St', 'Market Rd', 'Station Rd', 'Park Ave', 'Mill Lane', 'Church St'];
export const PLACES: { country: string; state: string; cities: string[] }[] = [
  { country: 'US', state: 'CA', cities: ['San Francisco', 'Los Angeles'] },
  { country: 'US', state: 'NY', cities: ['New York', 'Buffalo'] },
  { country: 'US', state: 'TX', cities: ['Austin', 'Dallas'] },
  { country: 'CA', state: 'ON', cities: ['Toronto', 'Ottawa'] },
  { country: 'CA', state: 'BC', cities: ['Vancouver'] },
  { country: 'DE', state: 'BE', cities: ['Berlin'] },
  { country: 'DE', state: 'BY', cities: ['Munich'] },
  { country: 'AU', state: 'NSW', cities: ['Sydney'] },
  { country: 'GB', state: 'LND', cities: ['London'] },
];
export const CARD_TYPES = ['Visa', 'American Express', 'MasterCard', 'Discover', 'JCB', 'Diners Club', 'PayPal'];
export const CARRIERS: [string, string][] = [
  ['UPS', 'https://www.ups.com/track?tracknum='],
  ['FedEx', 'https://www.fedex.com/fedextrack/?trknbr='],
  ['DHL', 'https://www.dhl.com/track?tracking-id='],
  ['USPS', 'https://tools.usps.com/go/TrackConfirmAction?tLabels='],
  ['Royal Mail', 'https://www.royalmail.com/track-your-item#/tracking-results/'],
  ['Pony Express', 'https://pony.example/track/'],
];
export const SHIPPING_METHODS: [string, number][] = [
  ['Standard shipping', 499],
  ['Express shipping', 1299],
  ['Free shipping', 0],
];
